package incluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

// podConfig is the pod's options file (internal/clusterrun.WithOptions):
// the client's own choices (selection, a --rerun-failed as the label filter
// it stands for; claimed features, plus claims, what the cluster provider
// knows the cluster does; the nodes of kubelet admission; bounds;
// parallelism; repetition; reference initializers; implementation;
// no-ceilings) in the pod's role. The rest is the client's own (its
// cluster, image, report dir, history) and takes the defaults.
func podConfig(o runconfig.Config, claims []string, role clusterrun.PodRole) runconfig.Config {
	c := runconfig.Default()
	c.Provider, c.ReportDir = kubeconfig.Name, role.ReportDir
	c.Suites, c.Profiles, c.Focus, c.Skip = o.Suites, o.Profiles, o.Focus, o.Skip
	c.LabelFilter = runner.AndFilters(o.LabelFilter, o.RerunFilter)
	c.SupportedFeatures = append([]string(nil), o.SupportedFeatures...)
	for _, f := range claims {
		if !slices.Contains(c.SupportedFeatures, f) {
			c.SupportedFeatures = append(c.SupportedFeatures, f)
		}
	}
	c.NodeAdmissionNodes = o.NodeAdmissionNodes
	c.Bounds = o.Bounds
	c.Parallel, c.Repeat, c.RepeatOnlyMeasured = o.Parallel, o.Repeat, o.RepeatOnlyMeasured
	c.ReferenceInitializers, c.Implementation, c.NoCeilings = o.ReferenceInitializers, o.Implementation, o.NoCeilings
	c.Child = &runconfig.Child{Pod: &runconfig.PodRole{RunID: role.RunID, WebhookListen: role.WebhookListen,
		WebhookAdvertise: role.WebhookAdvertise, WebhookNames: role.WebhookNames, PublishResults: role.PublishResults}}
	return c
}

// PodOptions is the pod's options file, for its role
// (internal/clusterrun.WithOptions).
func PodOptions(o runconfig.Config, claims []string) func(clusterrun.PodRole) ([]byte, error) {
	return func(role clusterrun.PodRole) ([]byte, error) { return runconfig.Encode(podConfig(o, claims, role)) }
}

// forwardedFeatures are the features a cluster provider declares that a
// run in the cluster may claim: behaviours of the apiservers and the
// scheduler, which need no more than the preflight's permissions (not the
// metrics or the audit logs, which the pod cannot reach as the provider
// does). The nodes' kubelets (NodeAdmission) go as --node-admission-nodes.
var forwardedFeatures = []features.Name{features.MutatingAdmissionPolicy, features.WebhookConfigurationOrder,
	features.ParallelValidatingWebhooks, features.Scheduler}

// admissionNodes are the nodes of c that run real kubelet admission code.
func admissionNodes(c cluster.Cluster) []string {
	var out []string
	for _, n := range c.Nodes() {
		if n.Capabilities.Has(features.NodeAdmission) {
			out = append(out, n.Name)
		}
	}
	return out
}

func forwardable(c cluster.Cluster) []string {
	var out []string
	caps := c.Capabilities()
	for _, f := range forwardedFeatures {
		if caps.Has(f) {
			out = append(out, string(f))
		}
	}
	return out
}

// Publish is the pod's last act: its report dir and how the run
// ended go to ConfigMaps of its namespace, where the client fetches them.
func Publish(errOut io.Writer, o runconfig.Config, runErr error) {
	code, message := exitcode.Passed, ""
	if runErr != nil {
		code, message = exitcode.Usage, exitcode.OneLine(runErr.Error())
		var ee *exitcode.Error
		if errors.As(runErr, &ee) {
			code = ee.Code
		}
	}
	cfg, err := kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig()
	if err == nil {
		var client kubernetes.Interface
		if client, err = kubernetes.NewForConfig(cfg); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = clusterrun.Publish(ctx, client, o.Pod().PublishResults, o.RunID(), o.ReportDir, code, message)
			cancel()
		}
	}
	if err != nil {
		fmt.Fprintf(errOut, "run-conformance: cannot publish the reports: %v\n", exitcode.OneLine(err.Error()))
		return
	}
	fmt.Fprintf(errOut, "published the reports to %s\n", o.Pod().PublishResults)
}
