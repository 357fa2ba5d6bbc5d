package report

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Validate checks what a reader relies on: the format's identity, known
// results and profiles, statistics that agree with the lists of cases, and
// measurements whose within flag agrees with their bounds.
func (r ConformanceReport) Validate() error {
	var errs []error
	if r.APIVersion != APIVersion || r.Kind != Kind {
		errs = append(errs, fmt.Errorf("is %s/%s, want %s/%s", r.APIVersion, r.Kind, APIVersion, Kind))
	}
	if r.Date.IsZero() {
		errs = append(errs, errors.New("date is missing"))
	}
	if r.Implementation != nil {
		if err := r.Implementation.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if !slices.Contains(Results, r.Result) {
		errs = append(errs, fmt.Errorf("result %q is not one of %v", r.Result, Results))
	}
	seen := map[string]bool{}
	for _, p := range r.Profiles {
		if _, err := spec.ParseProfile(p.Name); err != nil {
			errs = append(errs, err)
		}
		if seen[p.Name] {
			errs = append(errs, fmt.Errorf("profile %s is listed twice", p.Name))
		}
		seen[p.Name] = true
		errs = append(errs, p.validate())
	}
	for _, m := range r.Measurements {
		if m.Name == "" || m.Spec == "" {
			errs = append(errs, fmt.Errorf("measurement %+v has no name or spec", m))
		}
		within := (m.Bound == nil || m.Value <= *m.Bound) && (m.Lower == nil || m.Value >= *m.Lower)
		if within != m.Within {
			errs = append(errs, fmt.Errorf("measurement %s of %s: within is %t but the value %g and its bounds say %t", m.Name, m.Spec, m.Within, m.Value, within))
		}
	}
	return errors.Join(errs...)
}

func (p Profile) validate() error {
	var errs []error
	if !slices.Contains(Results, p.Result) {
		errs = append(errs, fmt.Errorf("profile %s: result %q is not one of %v", p.Name, p.Result, Results))
	}
	s := p.Statistics
	if s.Passed+s.Failed+s.Skipped+s.NotSupported+s.Flaky != s.Total {
		errs = append(errs, fmt.Errorf("profile %s: statistics do not add up to total %d", p.Name, s.Total))
	}
	for _, c := range []struct {
		what  string
		count int
		list  []Outcome
	}{{"failed", s.Failed, p.Failed}, {"skipped", s.Skipped, p.Skipped}, {"notSupported", s.NotSupported, p.NotSupported}, {"flaky", s.Flaky, p.Flaky}} {
		if c.count != len(c.list) {
			errs = append(errs, fmt.Errorf("profile %s: statistics say %d %s but %d are listed", p.Name, c.count, c.what, len(c.list)))
		}
		for _, o := range c.list {
			if o.Name == "" || o.Reason == "" {
				errs = append(errs, fmt.Errorf("profile %s: a %s case needs a name and a reason: %+v", p.Name, c.what, o))
			}
		}
	}
	if s.Failed > 0 && p.Result != Failure {
		errs = append(errs, fmt.Errorf("profile %s: %d failed but the result is %s", p.Name, s.Failed, p.Result))
	}
	if s.Flaky > 0 && p.Result != Failure {
		errs = append(errs, fmt.Errorf("profile %s: %d flaky but the result is %s: a flaky case is never a pass", p.Name, s.Flaky, p.Result))
	}
	if p.Result == Success && (s.Skipped > 0 || (p.Name == string(spec.Core) && s.NotSupported > 0)) {
		errs = append(errs, fmt.Errorf("profile %s: success with cases that did not run", p.Name))
	}
	return errors.Join(errs...)
}

// IsZero reports whether nothing about the implementation was stated.
func (i Implementation) IsZero() bool {
	return i.Organization == "" && i.Project == "" && i.URL == "" && i.Version == "" && len(i.Contact) == 0
}

// Validate checks a stated implementation: organization, project, url and
// version are required, url is an absolute http(s) URL, contacts are not
// blank.
func (i Implementation) Validate() error {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"organization", i.Organization}, {"project", i.Project}, {"url", i.URL}, {"version", i.Version},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("implementation: %s missing (state organization, project, url and version, or none of them)", strings.Join(missing, ", "))
	}
	u, err := url.Parse(i.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("implementation: url %q is not an absolute http(s) URL", i.URL)
	}
	for _, c := range i.Contact {
		if strings.TrimSpace(c) == "" {
			return errors.New("implementation: a contact is blank")
		}
	}
	return nil
}
