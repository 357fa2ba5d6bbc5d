package embedded

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/component-base/configz"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	scheduleroptions "k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

// scheduler is a real kube-scheduler running in-process.
type scheduler struct {
	cancel context.CancelFunc
	done   chan error
}

// startScheduler returns once the scheduler's informers have synced, which is
// when it can bind the first pod. ctx bounds the start only; the scheduler
// runs until stop.
func startScheduler(ctx context.Context, kubeconfig string) (*scheduler, error) {
	opts := scheduleroptions.NewOptions()
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0", // nothing needs its endpoints; one port fewer to find
	}); err != nil {
		return nil, err
	}
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	life, cancel := context.WithCancel(context.Background())
	cc, sched, err := app.Setup(life, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &scheduler{cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- app.Run(life, cc, sched) }()

	for informer, synced := range cc.InformerFactory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			s.stop()
			return nil, fmt.Errorf("informer for %v did not sync", informer)
		}
	}
	return s, nil
}

func (s *scheduler) stop() {
	s.cancel()
	<-s.done
	// The scheduler registers its configuration under a process-wide name;
	// free it so the next cluster in this process can register again.
	configz.Delete("componentconfig")
}
