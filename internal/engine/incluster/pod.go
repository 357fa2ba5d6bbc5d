package incluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/features"
	clusterrun "github.com/admission-conformance/admission-conformance/framework/incluster"
	"github.com/admission-conformance/admission-conformance/framework/runner"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// PodRunArgs are the client's own choices, as flags of the pod's `run`:
// selection (a --rerun-failed becomes the label filter it stands for),
// claimed features (plus claims, what the cluster provider knows the
// cluster does), bounds that differ from the defaults, parallelism,
// implementation.
func PodRunArgs(o runconfig.Config, claims []string) []string {
	var a []string
	for _, s := range o.Suites {
		a = append(a, "--suite", s)
	}
	for _, p := range o.Profiles {
		a = append(a, "--profile", p)
	}
	feats := append([]string(nil), o.SupportedFeatures...)
	for _, c := range claims {
		if !slices.Contains(feats, c) {
			feats = append(feats, c)
		}
	}
	if len(feats) > 0 {
		a = append(a, "--supported-features", strings.Join(feats, ","))
	}
	if f := runner.AndFilters(o.LabelFilter, o.RerunFilter); f != "" {
		a = append(a, "--label-filter", f)
	}
	for _, f := range o.Focus {
		a = append(a, "--focus", f)
	}
	for _, s := range o.Skip {
		a = append(a, "--skip", s)
	}
	if len(o.NodeAdmissionNodes) > 0 {
		a = append(a, "--node-admission-nodes", strings.Join(o.NodeAdmissionNodes, ","))
	}
	a = append(a, boundArgs(o.Bounds)...)
	if o.Parallel != 0 {
		a = append(a, "--parallel", strconv.Itoa(o.Parallel))
	}
	a = append(a, repeatArgs(o)...)
	if !o.ReferenceInitializers {
		a = append(a, "--reference-initializers=false")
	}
	impl := o.Implementation
	for _, f := range []struct{ flag, value string }{{"organization", impl.Organization}, {"project", impl.Project}, {"url", impl.URL},
		{"version", impl.Version}, {"contact", strings.Join(impl.Contact, ",")}} {
		if f.value != "" {
			a = append(a, "--implementation-"+f.flag, f.value)
		}
	}
	return a
}

// boundArgs are --bound flags for every bound that differs from its
// default, in the order of bounds.Keys.
func boundArgs(b bounds.Bounds) []string {
	asMap := func(b bounds.Bounds) map[string]string {
		data, _ := json.Marshal(b)
		m := map[string]string{}
		_ = json.Unmarshal(data, &m)
		return m
	}
	got, def := asMap(b), asMap(bounds.Defaults())
	var a []string
	for _, k := range bounds.Keys() {
		if got[k] != def[k] {
			a = append(a, "--bound", k+"="+got[k])
		}
	}
	return a
}

// repeatArgs passes --repeat on (to an in-cluster run's pod).
func repeatArgs(o runconfig.Config) []string {
	if o.Repeat <= 1 {
		return nil
	}
	a := []string{"--repeat", strconv.Itoa(o.Repeat)}
	if o.RepeatOnlyMeasured {
		a = append(a, "--repeat-only-measured")
	}
	return a
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
			err = clusterrun.Publish(ctx, client, o.PublishResults, o.RunID, o.ReportDir, code, message)
			cancel()
		}
	}
	if err != nil {
		fmt.Fprintf(errOut, "run-conformance: cannot publish the reports: %v\n", exitcode.OneLine(err.Error()))
		return
	}
	fmt.Fprintf(errOut, "published the reports to %s\n", o.PublishResults)
}
