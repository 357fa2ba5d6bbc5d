package report

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Marshal encodes r as YAML.
func Marshal(r ConformanceReport) ([]byte, error) {
	return yaml.Marshal(r)
}

// Unmarshal decodes a report strictly (an unknown field is an error) and
// validates it.
func Unmarshal(data []byte) (ConformanceReport, error) {
	var r ConformanceReport
	if err := yaml.UnmarshalStrict(data, &r); err != nil {
		return r, err
	}
	return r, r.Validate()
}

// Write writes report.yaml into dir and returns its path.
func Write(dir string, r ConformanceReport) (string, error) {
	data, err := Marshal(r)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName)
	return path, os.WriteFile(path, data, 0o644)
}

// Read reads and validates a report.yaml.
func Read(path string) (ConformanceReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ConformanceReport{}, err
	}
	r, err := Unmarshal(data)
	if err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
