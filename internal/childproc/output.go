package childproc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// tailLines is how many of its last lines a child's output keeps for its
// errors.
const tailLines = 20

// output takes a child's stdout and stderr line by line: it writes each
// line to the Spec's Log (prefixed) and Copy, keeps the last ones, and
// the last error line.
type output struct {
	mu          sync.Mutex
	log, copy   io.Writer
	prefix      string
	errorPrefix string
	tail        []string
	errorLine   string
}

func newOutput(s Spec) *output {
	return &output{log: s.Log, copy: s.Copy, prefix: s.Prefix, errorPrefix: s.ErrorPrefix}
}

// stream is a writer for one of the child's streams: each keeps its own
// unfinished line, so that stdout and stderr do not mix within a line.
func (o *output) stream(isErr bool) *lineWriter {
	return &lineWriter{out: o, isErr: isErr}
}

func (o *output) line(line string, isErr bool) {
	line = strings.TrimSuffix(line, "\r")
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log != nil {
		fmt.Fprintln(o.log, o.prefix+line)
	}
	if o.copy != nil {
		fmt.Fprintln(o.copy, line)
	}
	if isErr && o.errorPrefix != "" && strings.HasPrefix(line, o.errorPrefix) {
		o.errorLine = strings.TrimPrefix(line, o.errorPrefix)
	}
	if strings.TrimSpace(line) == "" {
		return // says nothing in an error
	}
	o.tail = append(o.tail, line)
	if len(o.tail) > tailLines {
		o.tail = o.tail[len(o.tail)-tailLines:]
	}
}

// lastLines are the last n lines kept (at most tailLines).
func (o *output) lastLines(n int) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.tail[max(0, len(o.tail)-n):]...)
}

func (o *output) lastError() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.errorLine
}

// lineWriter splits what one stream writes into lines.
type lineWriter struct {
	out   *output
	isErr bool
	buf   []byte
}

// Write is called by one goroutine at a time (exec copies each stream in
// its own).
func (l *lineWriter) Write(b []byte) (int, error) {
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.out.line(string(l.buf[:i]), l.isErr)
		l.buf = l.buf[i+1:]
	}
	return len(b), nil
}

// flush passes on an unfinished last line, once the stream has ended.
func (l *lineWriter) flush() {
	if len(l.buf) > 0 {
		l.out.line(string(l.buf), l.isErr)
		l.buf = nil
	}
}

// fileTail is the last n lines of a file a child wrote itself
// (Spec.File).
func fileTail(path string, n int) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return lines[max(0, len(lines)-n):]
}

// SharedWriter lets several children (Spec.Log) and the parent's own lines
// share w: each Write is done whole before the next begins.
func SharedWriter(w io.Writer) io.Writer {
	return &sharedWriter{w: w}
}

type sharedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *sharedWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
