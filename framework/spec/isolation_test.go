package spec

import "testing"

func TestIsolationValidate(t *testing.T) {
	for _, tc := range []struct {
		iso Isolation
		ok  bool
	}{
		{Isolation{}, true},
		{Isolation{Serial: true, Reason: "r"}, true},
		{Isolation{Exclusive: []string{NodesState}, Reason: "r"}, true},
		{Isolation{Shares: []string{NodesState, InitializersState}, Reason: "r"}, true},
		{Isolation{Serial: true}, false},                              // no reason
		{Isolation{Reason: "r"}, false},                               // a reason for nothing
		{Isolation{Exclusive: []string{"disks"}, Reason: "r"}, false}, // unknown state
		{Isolation{Exclusive: []string{NodesState}, Shares: []string{NodesState}, Reason: "r"}, false},
	} {
		if err := tc.iso.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.iso, err)
		}
	}
	if s := (Isolation{Serial: true, Shares: []string{NodesState}, Reason: "r"}).String(); s != "serial shares:nodes" {
		t.Errorf("String %q", s)
	}
	if s := (Isolation{}).String(); s != "-" {
		t.Errorf("String %q", s)
	}
}
