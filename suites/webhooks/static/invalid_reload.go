package static

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/metrics"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
)

var staticInvalidReload = spec.Spec{
	ShortName: "StaticInvalidReloadKeepsPrevious",
	Suite:     "webhooks",
	Description: "A static manifest that fails validation (a service clientConfig in a validating or mutating webhook, a " +
		"paramKind, a name without the .static.k8s.io suffix, a binding to a missing policy, a binding naming a policy without " +
		"the suffix or with a paramRef, a policy or binding API validation refuses, a document that is no policy or binding, " +
		"alone or in a v1 List; for validating and mutating policies) or the loader's file checks (a document separator " +
		"followed by text, a document that does not decode, an object of another kind, a name already loaded, a List with a " +
		"bad item, a file that cannot be read) leaves the previous set enforced on every replica, counts a " +
		"failed reload at the time it failed while the time of the last successful reload stays that of the good files, and " +
		"the last-config hash stays the hash of the last good files.",
	Features: []features.Name{features.StaticAdmissionManifests, features.APIServerMetrics},
	Profile:  spec.Extended,
	Seed:     staticSeed,
	Isolation: spec.Isolation{Exclusive: []string{spec.StaticManifestsState},
		Reason: "an invalid file makes every reload of its directory fail (no other spec's file would load) and the spec hashes whole directories"},
}

const (
	reloadsMetric    = "apiserver_manifest_admission_config_controller_automatic_reloads_total"
	lastConfigMetric = "apiserver_manifest_admission_config_controller_last_config_info"
	lastReloadMetric = "apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds"
)

var invalidCases = []invalidCase{
	{name: "a webhook with a service clientConfig", plugin: cluster.StaticValidatingWebhook, objs: func(f *harness.Framework) []runtime.Object {
		return []runtime.Object{serviceWebhookConfig(f)}
	}},
	{name: "a policy with a paramKind", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		return objs
	}},
	{name: "a policy whose name lacks the suffix", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		p := objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy)
		p.Name = "bad." + f.Namespace + ".example.com"
		// The binding must not be the broken part: it is left out.
		return objs[:1]
	}},
	{name: "a binding to a missing policy", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		return staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")[1:]
	}},
}

// failedReloads sums the failed reloads of plugin per apiserver (the
// apiserver_id_hash label), and returns the apiservers that ever loaded it.
func failedReloads(ctx context.Context, f *harness.Framework, plugin cluster.StaticPlugin) (map[string]float64, error) {
	samples, err := metrics.Series(ctx, cluster.MetricsConfigs(f.Env.Cluster), reloadsMetric, map[string]string{"plugin": string(plugin)})
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		id := s.Labels["apiserver_id_hash"]
		if s.Labels["status"] == "failure" {
			out[id] += s.Value
		} else if _, ok := out[id]; !ok {
			out[id] = 0
		}
	}
	return out, nil
}

// lastReloads reads the time of the last reload of plugin with status
// (success or failure) per apiserver (the apiserver_id_hash label).
func lastReloads(ctx context.Context, f *harness.Framework, plugin cluster.StaticPlugin, status string) (map[string]time.Time, error) {
	samples, err := metrics.Series(ctx, cluster.MetricsConfigs(f.Env.Cluster), lastReloadMetric,
		map[string]string{"plugin": string(plugin), "status": status})
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, s := range samples {
		out[s.Labels["apiserver_id_hash"]] = time.Unix(0, int64(s.Value*float64(time.Second)))
	}
	return out, nil
}

// awaitReloadRecorded waits, within the reload bound, until every apiserver
// reports a last reload of plugin with status at or after written (and, when
// hash is set, reports hash as its last config), and returns those times.
// Upstream swaps in a loaded set, or counts a failure, a moment before it
// records the reload's time and hash, so a probe that already sees the new
// set can still read the previous reload's time.
func awaitReloadRecorded(ctx context.Context, f *harness.Framework, plugin cluster.StaticPlugin, status string, written time.Time, hash string) map[string]time.Time {
	var at map[string]time.Time
	gomega.EventuallyWithOffset(1, ctx, func(ctx context.Context) error {
		var err error
		if at, err = lastReloads(ctx, f, plugin, status); err != nil {
			return err
		}
		if len(at) == 0 {
			return fmt.Errorf("no apiserver reports %s{status=%s} for %s", lastReloadMetric, status, plugin)
		}
		for id, t := range at {
			if t.Before(written) {
				return fmt.Errorf("apiserver %s: %s{status=%s} is %s, before the files were written (%s)", id, lastReloadMetric, status, t, written)
			}
		}
		if hash == "" {
			return nil
		}
		hashes, err := metrics.Series(ctx, cluster.MetricsConfigs(f.Env.Cluster), lastConfigMetric, map[string]string{"plugin": string(plugin)})
		if err != nil {
			return err
		}
		if len(hashes) == 0 {
			return fmt.Errorf("no apiserver reports %s for %s", lastConfigMetric, plugin)
		}
		for _, h := range hashes {
			if h.Labels["hash"] != hash {
				return fmt.Errorf("apiserver %s: %s is %s, not the written files' %s", h.Labels["apiserver_id_hash"], lastConfigMetric, h.Labels["hash"], hash)
			}
		}
		return nil
	}).WithTimeout(f.Bounds.StaticManifestReload.Duration).WithPolling(f.Bounds.PollInterval.Duration).
		Should(gomega.Succeed(), "every apiserver must record the reload of %s (%s{status=%s})", plugin, lastReloadMetric, status)
	return at
}

// expectReloadedBetween asserts every apiserver's time in at lies between
// from and to (the harness and the apiservers share this host's clock:
// static manifests need the apiservers' files), within the timing slack.
func expectReloadedBetween(f *harness.Framework, at map[string]time.Time, status string, from, to time.Time) {
	slack := f.Bounds.TimingSlack.Duration
	for id, t := range at {
		gomega.ExpectWithOffset(1, t).To(gomega.BeTemporally(">=", from.Add(-slack)),
			"apiserver %s: %s{status=%s} is %s, before the files it reports were written (%s, slack %s)", id, lastReloadMetric, status, t, from, slack)
		gomega.ExpectWithOffset(1, t).To(gomega.BeTemporally("<=", to.Add(slack)),
			"apiserver %s: %s{status=%s} is %s, after it was read (%s, slack %s)", id, lastReloadMetric, status, t, to, slack)
	}
}

var _ = harness.Describe(staticInvalidReload, func(f *harness.Framework) {
	for _, c := range slices.Concat(invalidCases, invalidFileCases, invalidPolicyFileCases) {
		ginkgo.It(c.name+" leaves the previous set enforced and counts a failed reload", func(ctx ginkgo.SpecContext) {
			dirs := staticDirs(f)
			good := "good-" + f.Namespace
			message := "static previous set " + f.Namespace
			var goodObjs []runtime.Object
			var goodRaw []byte
			if c.plugin == cluster.StaticMutatingPolicy {
				message, goodRaw = staticFailingMutation(f, "good", good)
			} else {
				goodObjs = goodStaticSet(f, c.plugin, good, message)
			}
			goodWritten := time.Now()
			if goodRaw != nil {
				writeStaticFile(f, c.plugin, staticFile(f, "good"), goodRaw)
			} else {
				writeStatic(f, c.plugin, "good", goodObjs...)
			}
			awaitStatic(ctx, f, deniedProbe(f, good, message))
			goodHash, err := staticmanifest.Hash(dirs[0][c.plugin])
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			goodLoaded := awaitReloadRecorded(ctx, f, c.plugin, "success", goodWritten, goodHash)
			expectReloadedBetween(f, goodLoaded, "success", goodWritten, time.Now())
			before, err := failedReloads(ctx, f, c.plugin)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(before).NotTo(gomega.BeEmpty(), "%s must report reloads of %s", reloadsMetric, c.plugin)
			gomega.Expect(goodLoaded).To(gomega.HaveLen(len(before)), "%s{status=success} must report the good files' reload on every apiserver", lastReloadMetric)

			badWritten := time.Now()
			if c.write != nil {
				c.write(f, c.plugin)
			} else if c.raw != nil {
				writeStaticFile(f, c.plugin, staticFile(f, "bad"), c.raw(f))
			} else {
				writeStatic(f, c.plugin, "bad", c.objs(f)...)
			}
			gomega.Eventually(ctx, func(ctx context.Context) (map[string]float64, error) {
				after, err := failedReloads(ctx, f, c.plugin)
				if err != nil {
					return nil, err
				}
				for id, n := range after {
					after[id] = n - before[id]
				}
				return after, nil
			}).WithTimeout(f.Bounds.StaticManifestReload.Duration).WithPolling(f.Bounds.PollInterval.Duration).
				Should(gomega.And(gomega.HaveLen(len(before)), gomega.HaveEach(gomega.BeNumerically(">=", 1))),
					"every apiserver must count a failed reload of %s (%s{status=failure})", c.plugin, reloadsMetric)
			failedAt := awaitReloadRecorded(ctx, f, c.plugin, "failure", badWritten, "")
			gomega.Expect(failedAt).To(gomega.HaveLen(len(before)), "%s{status=failure} must report the failed reload on every apiserver", lastReloadMetric)
			expectReloadedBetween(f, failedAt, "failure", badWritten, time.Now())
			stillLoaded, err := lastReloads(ctx, f, c.plugin, "success")
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(stillLoaded).To(gomega.Equal(goodLoaded), "a failed reload must leave %s{status=success} at the good files' reload", lastReloadMetric)

			_, err = enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, 0, f.Bounds.PollInterval.Duration, deniedProbe(f, good, message))
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the previous set must stay enforced on every replica after a failed reload")

			hashes, err := metrics.Series(ctx, cluster.MetricsConfigs(f.Env.Cluster), lastConfigMetric, map[string]string{"plugin": string(c.plugin)})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(hashes).NotTo(gomega.BeEmpty(), "%s must report %s", lastConfigMetric, c.plugin)
			for _, h := range hashes {
				gomega.Expect(h.Labels["hash"]).To(gomega.Equal(goodHash),
					fmt.Sprintf("%s must stay the hash of the last good files", lastConfigMetric))
			}
		})
	}
})
