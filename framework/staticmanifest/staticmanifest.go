// Package staticmanifest writes the files of static (manifest-based)
// admission configurations into the directories a cluster's apiservers
// watch (cluster.StaticManifests), and computes the hash the apiservers
// report for a directory.
package staticmanifest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// Suffix is the name suffix every static configuration must have, and that
// no configuration created through the API may have.
const Suffix = ".static.k8s.io"

// Encode renders objects (admissionregistration.k8s.io/v1 types) as one
// multi-document YAML file, with apiVersion and kind set.
func Encode(objs ...runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	for _, obj := range objs {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return nil, err
		}
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

// Write puts objs into file name of plugin's directory on every replica.
func Write(dirs []map[cluster.StaticPlugin]string, plugin cluster.StaticPlugin, name string, objs ...runtime.Object) error {
	data, err := Encode(objs...)
	if err != nil {
		return err
	}
	return WriteRaw(dirs, plugin, name, data)
}

// WriteRaw puts data into file name of plugin's directory on every replica.
// Each file appears whole: it is written under a name the apiservers ignore
// (their loader reads .yaml, .yml and .json only; atomicfile's temporary
// names end in .tmp) and renamed into place, so a watcher never reads half a
// file and counts a failed reload for it.
func WriteRaw(dirs []map[cluster.StaticPlugin]string, plugin cluster.StaticPlugin, name string, data []byte) error {
	for i, d := range dirs {
		dir, ok := d[plugin]
		if !ok {
			return fmt.Errorf("replica %d has no static manifests directory for %s", i, plugin)
		}
		if err := atomicfile.Write(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes file name from plugin's directory on every replica; a file
// already gone is not an error.
func Remove(dirs []map[cluster.StaticPlugin]string, plugin cluster.StaticPlugin, name string) error {
	for _, d := range dirs {
		if err := os.Remove(filepath.Join(d[plugin], name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// Hash is the hash an apiserver reports for dir in
// apiserver_manifest_admission_config_controller_last_config_info: "sha256:"
// and the hex SHA-256 of every non-empty .yaml, .yml or .json file in name
// order, each followed by a zero byte; empty when there is no such file
// (k8s.io/apiserver pkg/admission/plugin/manifest.LoadFiles).
func Hash(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	any := false
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		if len(data) == 0 {
			continue
		}
		h.Write(data)
		h.Write([]byte{0})
		any = true
	}
	if !any {
		return "", nil
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil)), nil
}
