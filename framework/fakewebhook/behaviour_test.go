package fakewebhook

import (
	"encoding/json"
	"testing"
)

func TestPatchOperationJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		op   PatchOperation
		want string
	}{
		{"add keeps a null value", PatchOperation{Op: "add", Path: "/a"}, `{"op":"add","path":"/a","value":null}`},
		{"replace keeps a null value", PatchOperation{Op: "replace", Path: "/a"}, `{"op":"replace","path":"/a","value":null}`},
		{"test keeps a false value", PatchOperation{Op: "test", Path: "/a", Value: false}, `{"op":"test","path":"/a","value":false}`},
		{"remove has no value", PatchOperation{Op: "remove", Path: "/a"}, `{"op":"remove","path":"/a"}`},
		{"move has from", PatchOperation{Op: "move", Path: "/a", From: "/b"}, `{"op":"move","path":"/a","from":"/b"}`},
		{"invalid op is sent as is", PatchOperation{Op: "frobnicate", Path: "a", Value: 1}, `{"op":"frobnicate","path":"a","value":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.op)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := json.Marshal(PatchOperation{Op: "add", Value: make(chan int)}); err == nil {
		t.Error("unencodable value did not fail")
	}
}
