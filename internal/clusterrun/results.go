package clusterrun

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/internal/targz"
)

// The pod's report dir travels in ConfigMaps of the run's namespace: a
// gzipped tar of its files cut into chunks (ResultsName-0, -1, ...), then
// the index ResultsName, written last, which says how many chunks there
// are, their digest, and how the run ended. No index: the run has not
// ended (or its pod died before it could say).
const (
	ResultsName = "results"
	// ChunkSize keeps each ConfigMap well under the 1 MiB an object may hold.
	ChunkSize = 768 << 10
	// MaxReportBytes bounds what a report dir may weigh once gzipped.
	MaxReportBytes = 64 << 20

	keyExitCode = "exitCode"
	keyMessage  = "message"
	keyChunks   = "chunks"
	keyDigest   = "sha256"
	keyEnded    = "ended"
	keyChunk    = "report.tar.gz"
	// resultsLabel marks the results ConfigMaps.
	resultsLabel = "admission-conformance.io/results"
)

// Outcome is how an in-cluster run ended, as its pod published it.
type Outcome struct {
	// ExitCode is the pod's `run` exit code: 0 passed, 1 a spec failed or
	// the run was interrupted once specs ran, 2 bad input or set-up failed.
	ExitCode int
	// Message is the run's error line, if any.
	Message string
	Ended   time.Time
	// Files are the report files written into the report dir.
	Files []string
}

// Publish stores the regular files at the top of dir (the report dir) and
// how the run ended in the run's namespace. The pod calls it as it ends.
func Publish(ctx context.Context, client kubernetes.Interface, namespace, runID, dir string, exitCode int, message string) error {
	archive, err := pack(dir)
	if err != nil {
		return err
	}
	if len(archive) > MaxReportBytes {
		return fmt.Errorf("the report dir weighs %d bytes gzipped, more than %d", len(archive), MaxReportBytes)
	}
	sum := sha256.Sum256(archive)
	labels := map[string]string{RunLabel: runID, resultsLabel: "true"}
	cms := client.CoreV1().ConfigMaps(namespace)
	n := 0
	for off := 0; off < len(archive) || n == 0; off += ChunkSize {
		end := min(off+ChunkSize, len(archive))
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: chunkName(n), Labels: labels},
			BinaryData: map[string][]byte{keyChunk: archive[off:end]}}
		if err := put(ctx, cms, cm); err != nil {
			return fmt.Errorf("publish the reports: %w", err)
		}
		n++
	}
	index := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ResultsName, Labels: labels}, Data: map[string]string{
		keyExitCode: strconv.Itoa(exitCode), keyMessage: message, keyChunks: strconv.Itoa(n),
		keyDigest: hex.EncodeToString(sum[:]), keyEnded: time.Now().UTC().Format(time.RFC3339),
	}}
	if err := put(ctx, cms, index); err != nil {
		return fmt.Errorf("publish the reports: %w", err)
	}
	return nil
}

func chunkName(i int) string { return ResultsName + "-" + strconv.Itoa(i) }

type configMaps interface {
	Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
	Update(context.Context, *corev1.ConfigMap, metav1.UpdateOptions) (*corev1.ConfigMap, error)
}

// put creates cm, or replaces the one of its name (a second Publish).
func put(ctx context.Context, cms configMaps, cm *corev1.ConfigMap) error {
	_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	return err
}

// ErrNoResults: the run has published nothing (yet).
var ErrNoResults = errors.New("the run has published no results")

// Fetch reads what the run published and writes its report files into
// dir (created if needed), replacing files of the same names.
func Fetch(ctx context.Context, client kubernetes.Interface, namespace, dir string) (Outcome, error) {
	cms := client.CoreV1().ConfigMaps(namespace)
	index, err := cms.Get(ctx, ResultsName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Outcome{}, ErrNoResults
	}
	if err != nil {
		return Outcome{}, err
	}
	var out Outcome
	code, err1 := strconv.Atoi(index.Data[keyExitCode])
	n, err2 := strconv.Atoi(index.Data[keyChunks])
	if err1 != nil || err2 != nil || n < 1 {
		return Outcome{}, fmt.Errorf("results index %s/%s is malformed: %v", namespace, ResultsName, index.Data)
	}
	out.ExitCode, out.Message = code, index.Data[keyMessage]
	out.Ended, _ = time.Parse(time.RFC3339, index.Data[keyEnded])
	var archive []byte
	for i := 0; i < n; i++ {
		cm, err := cms.Get(ctx, chunkName(i), metav1.GetOptions{})
		if err != nil {
			return Outcome{}, fmt.Errorf("results chunk %d of %d: %w", i+1, n, err)
		}
		archive = append(archive, cm.BinaryData[keyChunk]...)
	}
	sum := sha256.Sum256(archive)
	if hex.EncodeToString(sum[:]) != index.Data[keyDigest] {
		return Outcome{}, fmt.Errorf("results in %s do not match their digest: a chunk is missing or was changed", namespace)
	}
	if out.Files, err = unpack(archive, dir); err != nil {
		return Outcome{}, err
	}
	return out, nil
}

// pack is a gzipped tar of the regular files at the top of dir, sorted.
func pack(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var files []targz.File
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, targz.File{Name: e.Name(), Data: data})
	}
	return targz.Pack(files, time.Time{})
}

// unpack writes the archive's files into dir. Only plain file names are
// accepted: nothing lands outside dir.
func unpack(archive []byte, dir string) ([]string, error) {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("results archive: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var files []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, fmt.Errorf("results archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Name != filepath.Base(hdr.Name) || hdr.Name == "." || hdr.Name == ".." {
			return files, fmt.Errorf("results archive holds %q: not a plain file name", hdr.Name)
		}
		data, err := io.ReadAll(io.LimitReader(tr, MaxReportBytes*4))
		if err != nil {
			return files, fmt.Errorf("results archive: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, hdr.Name), data, 0o644); err != nil {
			return files, err
		}
		files = append(files, hdr.Name)
	}
	sort.Strings(files)
	return files, nil
}
