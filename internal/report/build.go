package report

import (
	"sort"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Build turns a run's results into its report. impl is nil when the user
// did not say what was tested.
func Build(res results.Results, impl *Implementation) ConformanceReport {
	date := res.FinishedAt
	if date.IsZero() {
		date = res.StartedAt
	}
	r := ConformanceReport{
		APIVersion:        APIVersion,
		Kind:              Kind,
		Date:              date.UTC().Round(0),
		Implementation:    impl,
		HarnessVersion:    res.HarnessVersion,
		KubernetesVersion: res.Cluster.KubernetesVersion,
		Cluster:           Cluster{Provider: res.Cluster.Provider, Topology: res.Cluster.Topology},
	}
	byProfile := map[string][]results.Spec{}
	for _, s := range res.Specs {
		if s.Profile == "" {
			// Suite-level nodes (BeforeSuite...) belong to no profile.
			if s.State == results.Failed {
				r.HarnessFailures = append(r.HarnessFailures, outcome(s))
			}
			continue
		}
		byProfile[s.Profile] = append(byProfile[s.Profile], s)
	}
	supported := res.Features.Supported()
	for _, p := range spec.Profiles {
		r.Profiles = append(r.Profiles, buildProfile(p, byProfile[string(p)], supported))
	}
	r.Result = overall(r)
	for _, s := range res.Specs {
		for _, m := range s.Measurements {
			r.Measurements = append(r.Measurements, Measurement{
				Spec: s.Suite + "/" + s.ShortName, Case: s.Name,
				Name: m.Name, Value: m.Value, Unit: m.Unit, Bound: m.Bound, Lower: m.Lower, Labels: m.Labels,
				Within: m.Within(),
			})
		}
	}
	return r
}

func buildProfile(p spec.Profile, cases []results.Spec, supported map[string]bool) Profile {
	out := Profile{Name: string(p)}
	optional := map[string]bool{}
	for _, s := range cases {
		for _, f := range s.Features {
			if feature, err := features.Lookup(f); err == nil && !feature.Core {
				optional[f] = true
			}
		}
		out.Statistics.Add(s.State)
		switch s.State {
		case results.Failed:
			out.Failed = append(out.Failed, outcome(s))
		case results.Skipped:
			out.Skipped = append(out.Skipped, outcome(s))
		case results.NotSupported:
			out.NotSupported = append(out.NotSupported, outcome(s))
		case results.Flaky:
			out.Flaky = append(out.Flaky, outcome(s))
		}
	}
	for f := range optional {
		if supported[f] {
			out.SupportedFeatures = append(out.SupportedFeatures, f)
		} else {
			out.UnsupportedFeatures = append(out.UnsupportedFeatures, f)
		}
	}
	sort.Strings(out.SupportedFeatures)
	sort.Strings(out.UnsupportedFeatures)
	out.Result = profileResult(p, out.Statistics)
	return out
}

// profileResult applies the profile rules. A core case that did not run
// (skipped or not supported) makes core partial, never success: every
// conformant implementation must pass all of core. Extended and reference
// cases are not-supported when their optional feature is neither declared
// nor claimed, which is not a gap in what the implementation claims. A
// flaky case failed at least once on this cluster: the profile fails.
func profileResult(p spec.Profile, s results.Summary) Result {
	switch {
	case s.Failed > 0 || s.Flaky > 0:
		return Failure
	case s.Passed == 0:
		return NotRun
	case s.Skipped > 0:
		return Partial
	case p == spec.Core && s.NotSupported > 0:
		return Partial
	default:
		return Success
	}
}

func overall(r ConformanceReport) Result {
	if len(r.HarnessFailures) > 0 {
		return Failure
	}
	result := Success
	for _, p := range r.Profiles {
		switch {
		case p.Result == Failure:
			return Failure
		case p.Result == Partial:
			result = Partial
		case p.Name == string(spec.Core) && p.Result != Success:
			result = Partial
		}
	}
	return result
}

func outcome(s results.Spec) Outcome {
	reason := s.Message
	if reason == "" {
		reason = string(s.State) + " without a message"
	}
	return Outcome{Suite: s.Suite, ShortName: s.ShortName, Name: s.Name, Reason: reason, Location: s.Location, PassRate: s.PassRate}
}
