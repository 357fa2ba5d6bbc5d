package coverage

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Snapshot is the kept list of the blocks a full default run left
// uncovered (uncovered.txt), with the module versions it was measured on,
// so a unit test can check every block is decided without a coverage run.
// `make coverage` writes it anew.
//
// The file is text, one block a line, so a new measurement reads as a
// diff:
//
//	# module k8s.io/apiserver v0.37.2
//	k8s.io/apiserver/pkg/admission/chain.go:50.2,52.3 1 chainAdmissionHandler.Admit
type Snapshot struct {
	// Modules maps each measured module to its version.
	Modules map[string]string
	Blocks  []Block
}

// WriteSnapshot writes s to w, blocks sorted by file then position.
func WriteSnapshot(w io.Writer, s Snapshot) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# The blocks of the pinned admission code a full default run left uncovered (make coverage writes")
	fmt.Fprintln(bw, "# this file; hack/coverage/decisions.yaml decides each). file:start,end statements function")
	mods := make([]string, 0, len(s.Modules))
	for m := range s.Modules {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		fmt.Fprintf(bw, "# module %s %s\n", m, s.Modules[m])
	}
	blocks := append([]Block(nil), s.Blocks...)
	sort.SliceStable(blocks, func(i, j int) bool {
		a, b := blocks[i], blocks[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.StartCol < b.StartCol
	})
	for _, b := range blocks {
		fmt.Fprintf(bw, "%s %d %s\n", b.Key(), b.Statements, b.Func)
	}
	return bw.Flush()
}

// ReadSnapshot reads what WriteSnapshot wrote.
func ReadSnapshot(file string) (Snapshot, error) {
	f, err := os.Open(file)
	if err != nil {
		return Snapshot{}, err
	}
	defer f.Close()
	s := Snapshot{Modules: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# module "); ok {
			mod, version, ok := strings.Cut(rest, " ")
			if !ok {
				return s, fmt.Errorf("%s:%d: want '# module PATH VERSION'", file, n)
			}
			s.Modules[mod] = version
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b, err := parseBlockLine(line)
		if err != nil {
			return s, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		s.Blocks = append(s.Blocks, b)
	}
	return s, sc.Err()
}

// parseBlockLine reads "file:sl.sc,el.ec statements func".
func parseBlockLine(line string) (Block, error) {
	fields := strings.SplitN(line, " ", 3)
	if len(fields) != 3 {
		return Block{}, fmt.Errorf("want 'file:start,end statements function', got %q", line)
	}
	colon := strings.LastIndex(fields[0], ":")
	if colon < 0 {
		return Block{}, fmt.Errorf("no position in %q", fields[0])
	}
	b := Block{File: fields[0][:colon], Func: fields[2]}
	if _, err := fmt.Sscanf(fields[0][colon+1:], "%d.%d,%d.%d", &b.StartLine, &b.StartCol, &b.EndLine, &b.EndCol); err != nil {
		return Block{}, fmt.Errorf("position %q: %w", fields[0][colon+1:], err)
	}
	stmts, err := strconv.Atoi(fields[1])
	if err != nil {
		return Block{}, fmt.Errorf("statements %q: %w", fields[1], err)
	}
	b.Statements = stmts
	return b, nil
}
