// Command reference-initializers installs the project's reference
// implementation of seed 002's initializers on the cluster a kubeconfig
// names, runs it until interrupted, and removes it again. The cluster's
// apiservers must be able to reach --advertise-host at the port it listens
// on; its identity must be allowed to impersonate the implementation's users
// and to create CRDs, RBAC, a namespace, policies and webhook
// configurations.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/reference/initializers/install"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "reference-initializers: "+err.Error())
		os.Exit(1)
	}
}

func run() error {
	var (
		kubeconfig, kubeContext, listen, advertise, namespaces, exempt string
		globalTimeout                                                  time.Duration
	)
	flag.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig (default loading rules)")
	flag.StringVar(&kubeContext, "context", "", "kubeconfig context")
	flag.StringVar(&listen, "listen", "0.0.0.0:8443", "where the webhook listens")
	flag.StringVar(&advertise, "advertise-host", "", "the address the apiservers call the webhook at (required with a wildcard --listen)")
	flag.StringVar(&namespaces, "namespace-selector", "kubernetes.io/metadata.name notin (kube-system)", "label selector of the namespaces whose pods are held")
	flag.StringVar(&exempt, "exempt-selector", "", "label selector of the mutating webhook configurations kept away from pods being initialized (default all)")
	flag.DurationVar(&globalTimeout, "global-timeout", 10*time.Minute, "pod age after which read repair acts on a pod's first initializer")
	flag.Parse()

	selector, err := metav1.ParseToLabelSelector(namespaces)
	if err != nil {
		return fmt.Errorf("--namespace-selector: %w", err)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext}).ClientConfig()
	if err != nil {
		return err
	}
	log := funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	inst, err := install.Install(ctx, config, install.Options{
		NamespaceSelector: selector, ExemptSelector: exempt, ListenAddress: listen, AdvertiseHost: advertise,
		GlobalTimeout: globalTimeout, Logger: log,
		Serving: pki.ServingFunc("admission-conformance-initializers"),
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "reference initializers installed; interrupt to remove them")
	<-ctx.Done()
	closeCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return inst.Close(closeCtx)
}
