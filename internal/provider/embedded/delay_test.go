package embedded

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// A replica behind the etcd delay proxy sees a change made through another
// replica no sooner than the delay; the other replica sees it at once.
func TestEtcdDelayMakesOneReplicaLag(t *testing.T) {
	const delay = 1500 * time.Millisecond
	c := start(t, WithAPIServers(2), WithEtcdDelay(1, delay), WithoutScheduler(), WithoutControllerManager())
	replicas := c.ReplicaConfigs()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lag-probe"}}
	if _, err := kubernetes.NewForConfigOrDie(replicas[0]).CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	seen := make([]time.Duration, len(replicas))
	for i, r := range replicas {
		client := kubernetes.NewForConfigOrDie(r)
		for seen[i] == 0 {
			// resourceVersion "0" is served from the watch cache, which is
			// fed by the same etcd watch as admission's informers.
			list, err := client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range list.Items {
				if item.Name == cm.Name {
					seen[i] = time.Since(created)
				}
			}
			if time.Since(created) > 10*time.Second {
				t.Fatalf("replica %d never saw the change", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	t.Logf("replicas saw the change after %v", seen)
	if seen[0] > delay/2 {
		t.Errorf("undelayed replica 0 took %s", seen[0])
	}
	if seen[1] < delay-200*time.Millisecond {
		t.Errorf("delayed replica 1 saw the change after %s, want about %s", seen[1], delay)
	}
}
