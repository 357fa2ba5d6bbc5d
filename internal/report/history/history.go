// Package history keeps every run's results in one directory, a folder per
// run named by its start time (DIR/20260501T100000Z/results.json), so that
// runs can be compared and measurements followed over time.
package history

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// TimeFormat names a run's folder: UTC, sortable as text.
const TimeFormat = "20060102T150405Z"

// Run is one kept run.
type Run struct {
	// Dir is the run's folder.
	Dir     string
	Results results.Results
}

// Save copies files (paths; results.json among them) into a new folder of
// historyDir named after the run's start, and returns the folder. A run
// never overwrites another: a second run in the same second gets a suffix.
func Save(historyDir string, res results.Results, files ...string) (string, error) {
	if err := os.MkdirAll(historyDir, 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(historyDir, res.StartedAt.UTC().Format(TimeFormat))
	dir := base
	for i := 2; ; i++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
		dir = base + "-" + strconv.Itoa(i)
	}
	for _, f := range files {
		if err := copyFile(f, filepath.Join(dir, filepath.Base(f))); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Runs reads every kept run of historyDir, oldest first. Folders without a
// results.json are not runs and are ignored; a results.json that does not
// read is an error.
func Runs(historyDir string) ([]Run, error) {
	entries, err := os.ReadDir(historyDir)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(historyDir, e.Name())
		path := filepath.Join(dir, results.FileName)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		res, err := results.Read(path)
		if err != nil {
			return nil, err
		}
		runs = append(runs, Run{Dir: dir, Results: res})
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].Results.StartedAt.Equal(runs[j].Results.StartedAt) {
			return runs[i].Results.StartedAt.Before(runs[j].Results.StartedAt)
		}
		return runs[i].Dir < runs[j].Dir
	})
	return runs, nil
}

// Resolve reads the results path names: a results.json file, a folder
// holding one (a report dir or one kept run), or a history dir (its newest
// run). It returns the results and the file they came from.
func Resolve(path string) (results.Results, string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return results.Results{}, "", err
	}
	file := path
	if info.IsDir() {
		file = filepath.Join(path, results.FileName)
		if _, err := os.Stat(file); err != nil {
			runs, err := Runs(path)
			if err != nil {
				return results.Results{}, "", err
			}
			if len(runs) == 0 {
				return results.Results{}, "", fmt.Errorf("%s holds neither a %s nor kept runs", path, results.FileName)
			}
			newest := runs[len(runs)-1]
			return newest.Results, filepath.Join(newest.Dir, results.FileName), nil
		}
	}
	res, err := results.Read(file)
	return res, file, err
}
