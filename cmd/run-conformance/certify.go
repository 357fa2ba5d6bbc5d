package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/certify"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/report"
	"github.com/admission-conformance/admission-conformance/framework/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/framework/report/junit"
	"github.com/admission-conformance/admission-conformance/framework/results"
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
				return usageError("--sign-key is required: an Ed25519 private key in PKCS#8 PEM (make one with 'run-conformance certify keygen --out vendor.key')")
			}
			key, err := certify.ReadPrivateKey(signKey)
			if err != nil {
				return usageError("--sign-key %s: %v", signKey, oneLine(err.Error()))
			}
			if err := o.load(cmd.Flags()); err != nil {
				return err
			}
			if o.InCluster || o.attach != "" {
				return usageError("certify runs from this machine: --in-cluster (and worker) runs cannot be certified")
			}
			if bundle == "" {
				bundle = filepath.Join(o.ReportDir, certify.DefaultName)
			}
			if err := checkOutputDir("--bundle", filepath.Dir(bundle)); err != nil {
				return err
			}
			var fp *certify.Fingerprint
			o.beforeStop = func(env *harness.Env) {
				f := certify.Collect(context.Background(), env.Cluster)
				fp = &f
			}
			runErr := runConformance(cmd.OutOrStdout(), o)
			var ee *exitError
			if runErr != nil && (!errors.As(runErr, &ee) || ee.code != exitFailed) {
				return runErr // no results of this run to certify
			}
			if fp == nil {
				if runErr != nil {
					return runErr
				}
				return usageError("no bundle: the run ran no spec against a cluster")
			}
			size, err := writeBundle(bundle, o.ReportDir, *fp, key)
			if err != nil {
				return usageError("cannot write the certification bundle: %v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "certification bundle %s (%d bytes), signed by key %s; check it with 'run-conformance verify %s --key PUBLIC_KEY'\n",
				bundle, size, certify.KeyID(key.Public().(ed25519.PublicKey)), bundle)
			return runErr // a failed case still fails the command, as with run
		},
	}
	o.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&signKey, "sign-key", "", "Ed25519 private key (PKCS#8 PEM) that signs the bundle's manifest")
	cmd.Flags().StringVar(&bundle, "bundle", "", "where to write the bundle (default REPORT_DIR/"+certify.DefaultName+")")
	cmd.AddCommand(newKeygenCommand())
	return cmd
}

// writeBundle packs the report dir's reports and run log with the
// fingerprint and harness.json.
func writeBundle(path, dir string, fp certify.Fingerprint, key ed25519.PrivateKey) (int64, error) {
	files := map[string][]byte{}
	for _, name := range []string{results.FileName, report.FileName, junit.FileName, htmlreport.FileName, runLogName} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, err
		}
		files[name] = data
	}
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		return 0, err
	}
	h, err := thisHarness(res)
	if err != nil {
		return 0, err
	}
	for name, v := range map[string]any{certify.FingerprintName: fp, certify.HarnessName: h} {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return 0, err
		}
		files[name] = append(data, '\n')
	}
	mtime := res.FinishedAt
	if mtime.IsZero() {
		mtime = res.StartedAt
	}
	return certify.Write(path, files, key, mtime)
}

// thisHarness is harness.json of this binary for res.
func thisHarness(res results.Results) (certify.Harness, error) {
	goVersion := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
	}
	return certify.NewHarness(version, certify.VCSCommit(), kubernetesModuleVersion(), goVersion, res)
}

func newKeygenCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Write a new Ed25519 signing key: FILE (PKCS#8 PEM, private, mode 0600) and FILE.pub (PKIX PEM, to publish)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError("--out is required")
			}
			priv, pub, err := certify.GenerateKey()
			if err != nil {
				return usageError("%v", err)
			}
			// Never overwrite a key.
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return usageError("%v", err)
			}
			if _, err := f.Write(priv); err != nil {
				f.Close()
				return usageError("%v", err)
			}
			if err := f.Close(); err != nil {
				return usageError("%v", err)
			}
			if err := os.WriteFile(out+".pub", pub, 0o644); err != nil {
				return usageError("%v", err)
			}
			k, _ := certify.ParsePublicKey(pub)
			fmt.Fprintf(cmd.OutOrStdout(), "private key %s, public key %s.pub (key %s)\n", out, out, certify.KeyID(k))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file for the private key; the public key goes to FILE.pub")
	return cmd
}
