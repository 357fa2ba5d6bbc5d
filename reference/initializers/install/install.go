package install

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/reference/initializers/controller"
	"github.com/admission-conformance/admission-conformance/reference/initializers/exemption"
	"github.com/admission-conformance/admission-conformance/reference/initializers/poller"
	"github.com/admission-conformance/admission-conformance/reference/initializers/webhook"
)

// Instance is a running installation.
type Instance struct {
	opts    Options
	admin   kubernetes.Interface
	crds    apiextensionsclient.Interface
	ctlUser kubernetes.Interface
	cancel  context.CancelFunc
	running sync.WaitGroup
	waiters []func()
	server  *webhook.Server
	// unregister deletes the webhook configuration, once created.
	unregister func(context.Context) error
	created    []deletion // in creation order; Close deletes in reverse
	closed     sync.Once
	err        error
}

// deletion removes one object the installation created.
type deletion struct {
	what string
	del  func(context.Context) error
}

// Install installs and starts the implementation, and returns once every
// part is in force: the CRD is served, the policy denies a Fail
// configuration, a configuration read succeeded, the controllers have
// synced, and the apiservers call the webhook. On failure it removes what
// it installed.
func Install(ctx context.Context, admin *rest.Config, o Options) (_ *Instance, err error) {
	o = o.withDefaults()
	in := &Instance{opts: o}
	defer func() {
		if err != nil {
			err = errors.Join(err, in.Close(context.WithoutCancel(ctx)))
		}
	}()
	if in.admin, err = kubernetes.NewForConfig(admin); err != nil {
		return nil, err
	}
	if in.crds, err = apiextensionsclient.NewForConfig(admin); err != nil {
		return nil, err
	}
	pollerDynamic, err := dynamic.NewForConfig(as(admin, pollerUser))
	if err != nil {
		return nil, err
	}
	if in.ctlUser, err = kubernetes.NewForConfig(as(admin, controllerUser)); err != nil {
		return nil, err
	}
	adminDynamic, err := dynamic.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	in.cancel = cancel

	if err := in.createNamespaceAndRBAC(ctx); err != nil {
		return nil, err
	}
	if o.AfterRBAC != nil {
		o.AfterRBAC(ctx)
	}
	if err := in.createCRD(ctx); err != nil {
		return nil, err
	}
	if err := in.createPolicy(ctx, adminDynamic); err != nil {
		return nil, err
	}

	p := poller.New(pollerDynamic, o.PollInterval, o.Logger.WithName("poller"))
	if err := in.waitAllowed(ctx, "the poller to list configurations", func(ctx context.Context) error { return listConfigurations(ctx, pollerDynamic) }); err != nil {
		return nil, err
	}
	in.goRun(func() { p.Run(runCtx) })
	if err := in.step(ctx, "the first configuration read", p.WaitFirstRead); err != nil {
		return nil, err
	}

	if err := in.waitAllowed(ctx, "the controller to list pods", func(ctx context.Context) error { return listPods(ctx, in.ctlUser) }); err != nil {
		return nil, err
	}
	ctl := controller.New(in.ctlUser, controller.Settings{NoTimeouts: o.NoTimeouts, NoReadRepair: o.NoReadRepair,
		GlobalTimeout: o.GlobalTimeout, RepairInterval: o.RepairInterval}, o.Logger.WithName("controller"))
	ctl.Start(runCtx)
	in.waiters = append(in.waiters, ctl.Wait)
	if err := in.step(ctx, "the timeout controller", ctl.WaitForSync); err != nil {
		return nil, err
	}
	ex := exemption.New(in.ctlUser, o.ExemptSelector, o.Logger.WithName("exemption"))
	ex.Start(runCtx)
	in.waiters = append(in.waiters, ex.Wait)
	if err := in.step(ctx, "the exemption controller", ex.WaitForSync); err != nil {
		return nil, err
	}

	if err := in.startWebhook(ctx, p); err != nil {
		return nil, err
	}
	return in, nil
}

// startWebhook serves the webhook and registers it.
func (in *Instance) startWebhook(ctx context.Context, src webhook.Source) error {
	o := in.opts
	if o.Serving == nil {
		return errors.New("reference initializers: Options.Serving is required: it makes the webhook's serving certificate")
	}
	host, _, err := net.SplitHostPort(o.ListenAddress)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", o.ListenAddress, err)
	}
	advertise := o.AdvertiseHost
	if advertise == "" {
		advertise = host
	}
	if ip := net.ParseIP(advertise); advertise == "" || ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("reference initializers: listening on %q, the apiservers need an address to call: set the advertise host", o.ListenAddress)
	}
	cert, caBundle, err := o.Serving(append([]string{"127.0.0.1", "localhost", advertise}, o.Hosts...))
	if err != nil {
		return fmt.Errorf("reference initializers: serving certificate: %w", err)
	}
	order := webhook.ByName
	if o.ReverseOrder {
		order = webhook.ReverseByName
	}
	in.server, err = webhook.Start(o.ListenAddress, cert, src, webhook.Settings{BlockAfter: o.BlockAfter, Order: order, ScopeLabel: o.ScopeLabel}, o.Logger.WithName("webhook"))
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(in.server.Address())
	base := "https://" + net.JoinHostPort(advertise, port)
	return in.registerWebhook(ctx, base, caBundle)
}

func (in *Instance) goRun(f func()) {
	in.running.Add(1)
	go func() {
		defer in.running.Done()
		f()
	}()
}

// step runs one bounded installation step.
func (in *Instance) step(ctx context.Context, what string, f func(context.Context) error) error {
	stepCtx, cancel := context.WithTimeout(ctx, in.opts.ReadyTimeout)
	defer cancel()
	if err := f(stepCtx); err != nil {
		return fmt.Errorf("reference initializers: %s: %w", what, err)
	}
	return nil
}

// Close removes everything the installation created and stops its parts:
// the webhook configuration first, so nothing calls a stopped webhook. It is
// safe to call twice and on a partial installation.
func (in *Instance) Close(ctx context.Context) error {
	in.closed.Do(func() { in.err = in.close(ctx) })
	return in.err
}

func (in *Instance) close(ctx context.Context) error {
	var errs []error
	if in.unregister != nil {
		if err := in.unregister(ctx); err != nil {
			errs = append(errs, fmt.Errorf("reference initializers: delete the webhook configuration: %w", err))
		}
	}
	if in.cancel != nil {
		in.cancel()
	}
	in.running.Wait()
	for _, w := range in.waiters {
		w()
	}
	if in.admin != nil {
		if err := exemption.Remove(ctx, in.admin, in.opts.ExemptSelector); err != nil {
			errs = append(errs, fmt.Errorf("reference initializers: remove the exemption: %w", err))
		}
	}
	if in.server != nil {
		errs = append(errs, in.server.Close(ctx))
	}
	for i := len(in.created) - 1; i >= 0; i-- {
		if err := in.created[i].del(ctx); err != nil {
			errs = append(errs, fmt.Errorf("reference initializers: delete %s: %w", in.created[i].what, err))
		}
	}
	return errors.Join(errs...)
}
