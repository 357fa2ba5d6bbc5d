package ordering

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// quotaProbe sends one dry-run request to a replica and says from its
// answer whether the quota is in force there.
type quotaProbe func(ctx context.Context, client kubernetes.Interface) (inForce bool, err error)

// createQuotaInForce creates quota in the case's namespace and returns once
// every apiserver replica enforces it. Until the quota controller has
// written its status, and the replica has seen it, the plugin refuses what
// the quota tracks with "status unknown for quota": that answer is waited
// out for every probe; probe decides the rest.
func createQuotaInForce(ctx context.Context, f *harness.Framework, quota *corev1.ResourceQuota, probe quotaProbe) error {
	if _, err := f.Client.CoreV1().ResourceQuotas(f.Namespace).Create(ctx, quota, metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err := enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, f.Bounds.ObjectState.Duration, f.Bounds.PollInterval.Duration,
		func(ctx context.Context, rc *rest.Config) (bool, error) {
			client, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return false, err
			}
			inForce, err := probe(ctx, client)
			if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "status unknown for quota") {
				return false, nil
			}
			return inForce, err
		})
	return err
}

// expectForbidden asserts err is a 403 Forbidden Status with exactly
// message, as compiled-in plugins refuse.
func expectForbidden(err error, what, message string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "%s must be refused (%s)", what, message)
	var status apierrors.APIStatus
	gomega.ExpectWithOffset(1, errors.As(err, &status)).To(gomega.BeTrue(), "a refusal must be a Status, got %T: %v", err, err)
	s := status.Status()
	gomega.ExpectWithOffset(1, s.Code).To(gomega.Equal(int32(http.StatusForbidden)), "%s: %v", what, err)
	gomega.ExpectWithOffset(1, s.Reason).To(gomega.Equal(metav1.StatusReasonForbidden), "%s: %v", what, err)
	gomega.ExpectWithOffset(1, s.Message).To(gomega.Equal(message), "%s: the refusal's message, got %q", what, s.Message)
}
