package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/configz"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kcmoptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
)

// controllerManager is a real kube-controller-manager running in-process.
type controllerManager struct {
	cancel context.CancelFunc
	done   chan error
}

// startControllerManager returns once the service account controller has
// created the default ServiceAccount in "default": until then the
// ServiceAccount admission plugin rejects pods, so that is when the
// controller manager is ready for the harness.
func startControllerManager(ctx context.Context, kubeconfig, signingCert, signingKey string, client kubernetes.Interface, poll, timeout time.Duration) (*controllerManager, error) {
	s, err := kcmoptions.NewKubeControllerManagerOptions()
	if err != nil {
		return nil, err
	}
	all, disabled, aliases := app.KnownControllers(), app.ControllersDisabledByDefault(), app.ControllerAliases()
	named := s.Flags(all, disabled, aliases)
	fs := pflag.NewFlagSet("kube-controller-manager", pflag.ContinueOnError)
	for _, f := range named.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--cluster-signing-cert-file=" + signingCert,
		"--cluster-signing-key-file=" + signingKey,
	}); err != nil {
		return nil, err
	}
	s.ParsedFlags = &named
	if err := s.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	// ctx bounds the start only; the controller manager runs until stop.
	life, cancel := context.WithCancel(context.Background())
	config, err := s.Config(life, all, disabled, aliases)
	if err != nil {
		cancel()
		return nil, err
	}
	cm := &controllerManager{cancel: cancel, done: make(chan error, 1)}
	go func() { cm.done <- app.Run(life, config.Complete()) }()

	err = wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-cm.done:
			cm.done <- err
			return false, fmt.Errorf("exited: %v", err)
		default:
		}
		// Not found and transient errors while it starts are both retried.
		_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		cm.stop()
		return nil, fmt.Errorf("default ServiceAccount not created: %w", err)
	}
	return cm, nil
}

func (c *controllerManager) stop() {
	c.cancel()
	<-c.done
	configz.Delete(app.ConfigzName) // as for the scheduler
}
