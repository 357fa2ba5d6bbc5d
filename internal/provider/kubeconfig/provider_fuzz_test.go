package kubeconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// unsafeKubeconfig reports whether a fuzzed kubeconfig names a file whose
// reading could hang or exhaust memory (a device, a FIFO, /proc): every
// string it holds, decoded as YAML, is checked. One that does not decode
// is checked as it is, and one with escapes is left out.
func unsafeKubeconfig(data []byte) bool {
	bad := func(s string) bool {
		for _, p := range []string{"/dev", "/proc", "/sys"} {
			if strings.Contains(s, p) {
				return true
			}
		}
		return false
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return bytes.ContainsRune(data, '\\') || bad(string(data))
	}
	unsafe := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			unsafe = unsafe || bad(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				unsafe = unsafe || bad(k)
				walk(e)
			}
		}
	}
	walk(doc)
	return unsafe
}

// FuzzLoadConfig: a kubeconfig as the harness reads it (run --provider
// kubeconfig, results, cleanup, matrix targets): loaded and its context
// resolved, nothing contacted. A kubeconfig that does not load is one
// line.
func FuzzLoadConfig(f *testing.F) {
	home := f.TempDir()
	f.Setenv("HOME", home)
	f.Setenv("KUBECONFIG", filepath.Join(home, "no-kubeconfig"))
	const good = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	for _, seed := range []struct{ kubeconfig, context string }{
		{good, ""},
		{good, "x"},
		{good, "nope"},
		{"this: is: not: a kubeconfig", ""},
		{"", ""},
		{"apiVersion: v1\nkind: Config\n", ""},
		{`{"apiVersion":"v1","kind":"Config","clusters":[{"name":"c","cluster":{"server":"http://[::1]:6443","insecure-skip-tls-verify":true}}],"contexts":[{"name":"x","context":{"cluster":"c","user":"u","namespace":"n"}}],"current-context":"x","users":[{"name":"u","user":{"username":"a","password":"b"}}]}`, ""},
		{"apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://h:6443\", certificate-authority: ca.crt, certificate-authority-data: Zm9v}}]\nusers: [{name: u, user: {client-certificate: c.crt, client-key: c.key, tokenFile: token}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n", ""},
		{"apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://h\", proxy-url: \"socks5://p:1080\", tls-server-name: h}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: false, interactiveMode: Never}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n", ""},
		{"apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://h\"}}]\nusers: [{name: u, user: {auth-provider: {name: oidc, config: {idp-issuer-url: \"https://i\"}}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n", ""},
		{"apiVersion: v2\nkind: Config\n", ""},
		{"kind: Pod\n", ""},
	} {
		f.Add([]byte(seed.kubeconfig), seed.context)
	}
	f.Fuzz(func(t *testing.T, data []byte, context string) {
		if unsafeKubeconfig(data) {
			t.Skip("names a device or /proc")
		}
		path := filepath.Join(t.TempDir(), "kubeconfig")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := New(WithPath(path), WithContext(context)).LoadConfig()
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("kubeconfig %q: error is not one line: %q", data, err)
			}
			return
		}
		if cfg == nil || cfg.Host == "" {
			t.Fatalf("kubeconfig %q loaded without a server: %+v", data, cfg)
		}
	})
}
