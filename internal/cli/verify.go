package cli

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/certify"
	"github.com/admission-conformance/admission-conformance/internal/engine"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

func newVerifyCommand() *cobra.Command {
	var keyFile string
	cmd := &cobra.Command{
		Use:   "verify BUNDLE",
		Short: "Check a certification bundle (digests, signature, harness, reports against the cases) and print its re-derived verdict (no cluster)",
		Long: `verify checks every file's sha256 against manifest.json, the signature over it with --key
(without --key it says the signature was not checked against a trusted key), that report.yaml
and junit.xml are exactly what results.json's cases give, the case selection digest, the
contract digest when the bundle names this harness version, then re-derives each profile's
verdict from the cases and prints it with the cluster's fingerprint.
Exit codes: 0 valid and conformant, 1 valid but not conformant, 2 tampered or unreadable
(one line naming what is wrong).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pub ed25519.PublicKey
			if keyFile != "" {
				k, err := certify.ReadPublicKey(keyFile)
				if err != nil {
					return exitcode.Usagef("--key %s: %v", keyFile, exitcode.OneLine(err.Error()))
				}
				pub = k
			}
			return verifyBundle(cmd.OutOrStdout(), args[0], pub)
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "the vendor's Ed25519 public key (PKIX PEM) the signature must verify with")
	return cmd
}

func verifyBundle(out io.Writer, path string, pub ed25519.PublicKey) error {
	f, err := os.Open(path)
	if err != nil {
		return exitcode.Usagef("%s is unreadable: %v", path, err)
	}
	defer f.Close()
	files, err := certify.Unpack(f)
	if err != nil {
		return exitcode.Usagef("%s is not a certification bundle: %v", path, exitcode.OneLine(err.Error()))
	}
	opts, err := verifyOptions(pub)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	o := certify.Verify(files, opts)
	if o.Code == certify.Invalid {
		return exitcode.Usagef("%s is not valid: %s", path, o.Problem)
	}
	fmt.Fprintf(out, "bundle %s: %d files, every sha256 matches manifest.json; report.yaml and junit.xml follow from results.json\n", path, len(files))
	for _, n := range o.Notes {
		fmt.Fprintln(out, n)
	}
	for _, l := range o.FingerprintText() {
		fmt.Fprintln(out, l)
	}
	fmt.Fprintln(out, o.Summary())
	if o.Code == certify.NotConformant {
		return exitcode.Failedf("%s is valid but not conformant: conformance %s", path, o.Report.Result)
	}
	return nil
}

// verifyOptions are this binary's harness and specs.
func verifyOptions(pub ed25519.PublicKey) (certify.Options, error) {
	digest, err := certify.ContractDigest()
	if err != nil {
		return certify.Options{}, fmt.Errorf("this harness's contract inventory: %v", err)
	}
	goVersion := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
	}
	opts := certify.Options{PublicKey: pub, This: certify.Harness{Version: version, Commit: certify.VCSCommit(), Kubernetes: engine.KubernetesModuleVersion(), GoVersion: goVersion, ContractDigest: digest}}
	for _, s := range spec.All() {
		opts.Specs = append(opts.Specs, s.Suite+"/"+s.ShortName)
	}
	return opts, nil
}
