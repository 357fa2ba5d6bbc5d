package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes matrix.json and matrix.html into dir.
func Write(dir string, m Matrix) error {
	if err := WriteJSON(filepath.Join(dir, JSONName), m); err != nil {
		return err
	}
	return WriteHTML(filepath.Join(dir, HTMLName), m)
}

// WriteJSON writes the matrix's JSON to path.
func WriteJSON(path string, m Matrix) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// WriteHTML writes the matrix's page to path.
func WriteHTML(path string, m Matrix) error {
	var buf bytes.Buffer
	if err := Render(&buf, m); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Read reads a matrix.json.
func Read(path string) (Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Matrix{}, err
	}
	var m Matrix
	if err := json.Unmarshal(data, &m); err != nil {
		return Matrix{}, fmt.Errorf("%s is not a %s: %w", path, JSONName, err)
	}
	if m.Kind != Kind || m.APIVersion != APIVersion {
		return Matrix{}, fmt.Errorf("%s is not a %s (apiVersion %q, kind %q; want %s, %s)", path, JSONName, m.APIVersion, m.Kind, APIVersion, Kind)
	}
	return m, nil
}
