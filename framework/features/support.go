package features

import (
	"fmt"
	"sort"
	"strings"
)

// Support says whether a provider's clusters declare a feature: always,
// under a condition (When), or never, for a reason in the physical world
// (Never: what the cluster lacks or what doing it would cost the user), so
// a case is never not supported merely because the provider does not set
// something up. Claimed says the user may claim it (--supported-features)
// when the provider cannot tell.
type Support struct {
	When    string
	Never   string
	Claimed bool
}

// Always is a feature the provider's clusters always declare.
var Always = Support{}

// Declared says how the feature is declared: "always", "when" (Why is the
// condition), "never" or "claimed" (Why is the reason).
func (s Support) Declared() (how, why string) {
	switch {
	case s.Never != "" && s.Claimed:
		return "claimed", s.Never
	case s.Never != "":
		return "never", s.Never
	case s.When != "":
		return "when", s.When
	}
	return "always", ""
}

// String is the table cell `list --features --provider` prints.
func (s Support) String() string {
	how, why := s.Declared()
	switch how {
	case "claimed":
		return "if claimed: " + why
	case "never":
		return "no: " + why
	case "when":
		return "when " + why
	}
	return "yes"
}

// SupportTable is one provider's Support for every registered feature.
type SupportTable map[Name]Support

// Check fails unless t covers exactly the registered features: a feature
// added to the registry must be placed in every provider's table.
func (t SupportTable) Check(provider string) error {
	var missing, unknown []string
	for n := range registry {
		if _, ok := t[n]; !ok {
			missing = append(missing, string(n))
		}
	}
	for n, s := range t {
		if _, ok := registry[n]; !ok {
			unknown = append(unknown, string(n))
		}
		if s.When != "" && s.Never != "" {
			return fmt.Errorf("%s: %s is both conditional and never declared", provider, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(unknown)
	if len(missing)+len(unknown) > 0 {
		return fmt.Errorf("%s's feature support table: missing %s; unknown %s", provider,
			strings.Join(missing, ", "), strings.Join(unknown, ", "))
	}
	return nil
}
