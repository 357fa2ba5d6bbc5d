package spec

import (
	"slices"
	"strings"
	"testing"
)

func TestRegisterSuiteAddsAVendorSuiteAfterTheProjectsOwn(t *testing.T) {
	name := RegisterSuite("vendor-a")
	if name != "vendor-a" || !slices.Equal(Suites[:len(BuiltinSuites)], BuiltinSuites) || Suites[len(Suites)-1] != "vendor-a" {
		t.Fatalf("RegisterSuite: %q, Suites %v", name, Suites)
	}
	if _, err := ParseSuite("vendor-a"); err != nil {
		t.Fatal(err)
	}
	s := Spec{ShortName: "VendorASpec", Suite: name, Description: "d", Profile: Core, Seed: "vendor contract 1"}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSuite("vendor-b"); err == nil || !strings.Contains(err.Error(), "vendor-a") {
		t.Fatalf("an unregistered suite: %v", err)
	}
	for _, bad := range []string{"vendor-a", "ordering", "harness", "Acme", "", "a_b", "abcdefghijklmnopqrstu"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterSuite(%q) did not panic", bad)
				}
			}()
			RegisterSuite(bad)
		}()
	}
}
