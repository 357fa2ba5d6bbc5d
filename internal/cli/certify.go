package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/certify"
	"github.com/admission-conformance/admission-conformance/internal/engine"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// certify is its own command, not `run --certify`: it takes every flag of
// run (the same options), adds its own (--sign-key, --bundle) and a keygen
// subcommand, and refuses the modes a bundle cannot come from (in-cluster,
// where the run happens in a pod).
func newCertifyCommand() *cobra.Command {
	o := defaultRunOptions()
	var signKey, bundle string
	cmd := &cobra.Command{
		Use:   "certify --sign-key KEY",
		Short: "Run like 'run', then write one signed certification bundle of the run (reports, run log, cluster fingerprint, harness digests)",
		Long: `certify runs exactly like 'run' (same flags) and then writes one tar.gz into the report dir
(--bundle to put it elsewhere): results.json, report.yaml, junit.xml, report.html, run.log;
fingerprint.json (the cluster read from itself: version, feature gates, admission plugins,
apiserver replicas, kubelet versions, provider, each with its source); harness.json (harness
version and commit, sha256 of the contract inventory and of the case selection); manifest.json
(sha256 of every file) and manifest.sig (Ed25519 over manifest.json with --sign-key, a PKCS#8
PEM key: 'run-conformance certify keygen' or 'openssl genpkey -algorithm ed25519').
A reviewer checks it with 'run-conformance verify BUNDLE --key PUBLIC_KEY'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if signKey == "" {
				return exitcode.Usagef("--sign-key is required: an Ed25519 private key in PKCS#8 PEM (make one with 'run-conformance certify keygen --out vendor.key')")
			}
			key, err := certify.ReadPrivateKey(signKey)
			if err != nil {
				return exitcode.Usagef("--sign-key %s: %v", signKey, exitcode.OneLine(err.Error()))
			}
			if err := o.load(cmd.Flags()); err != nil {
				return err
			}
			o.Version = version
			return engine.Certify(cmd.OutOrStdout(), o.Config, key, bundle)
		},
	}
	o.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&signKey, "sign-key", "", "Ed25519 private key (PKCS#8 PEM) that signs the bundle's manifest")
	cmd.Flags().StringVar(&bundle, "bundle", "", "where to write the bundle (default REPORT_DIR/"+certify.DefaultName+")")
	cmd.AddCommand(newKeygenCommand())
	return cmd
}

func newKeygenCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Write a new Ed25519 signing key: FILE (PKCS#8 PEM, private, mode 0600) and FILE.pub (PKIX PEM, to publish)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return exitcode.Usagef("--out is required")
			}
			priv, pub, err := certify.GenerateKey()
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			// Never overwrite a key.
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			if _, err := f.Write(priv); err != nil {
				f.Close()
				return exitcode.Usagef("%v", err)
			}
			if err := f.Close(); err != nil {
				return exitcode.Usagef("%v", err)
			}
			if err := os.WriteFile(out+".pub", pub, 0o644); err != nil {
				return exitcode.Usagef("%v", err)
			}
			k, _ := certify.ParsePublicKey(pub)
			fmt.Fprintf(cmd.OutOrStdout(), "private key %s, public key %s.pub (key %s)\n", out, out, certify.KeyID(k))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file for the private key; the public key goes to FILE.pub")
	return cmd
}
