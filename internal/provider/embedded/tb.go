package embedded

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// componentTB satisfies ktesting.TB so that upstream's StartTestServer can run
// outside `go test`. Logs go to the component log; a fatal call panics with
// errFatal, which startAPIServer turns back into an error.
type componentTB struct {
	name    string
	tempDir string
	log     io.Writer

	mu       sync.Mutex
	cleanups []func()
	failed   bool
}

type errFatal struct{ msg string }

func (t *componentTB) Attr(string, string)      {}
func (t *componentTB) Chdir(string)             { t.Fatal("Chdir is not supported outside go test") }
func (t *componentTB) Helper()                  {}
func (t *componentTB) Name() string             { return t.name }
func (t *componentTB) Setenv(key, value string) { _ = os.Setenv(key, value) }
func (t *componentTB) Log(args ...any)          { fmt.Fprintln(t.log, append([]any{t.name + ":"}, args...)...) }
func (t *componentTB) Logf(format string, args ...any) {
	fmt.Fprintf(t.log, t.name+": "+format+"\n", args...)
}
func (t *componentTB) Error(args ...any)                 { t.Log(args...); t.Fail() }
func (t *componentTB) Errorf(format string, args ...any) { t.Logf(format, args...); t.Fail() }
func (t *componentTB) Fatal(args ...any)                 { t.Log(args...); t.FailNow() }
func (t *componentTB) Fatalf(format string, args ...any) {
	panic(errFatal{msg: fmt.Sprintf(format, args...)})
}
func (t *componentTB) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}
func (t *componentTB) FailNow()                 { panic(errFatal{msg: t.name + " failed"}) }
func (t *componentTB) Failed() bool             { t.mu.Lock(); defer t.mu.Unlock(); return t.failed }
func (t *componentTB) Skip(args ...any)         { t.Fatal(args...) }
func (t *componentTB) Skipf(f string, a ...any) { t.Fatalf(f, a...) }
func (t *componentTB) SkipNow()                 { t.FailNow() }
func (t *componentTB) Skipped() bool            { return false }
func (t *componentTB) TempDir() string {
	dir, err := os.MkdirTemp(t.tempDir, "tb-")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	return dir
}

func (t *componentTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// runCleanups runs registered cleanups last-first, like testing.T does.
func (t *componentTB) runCleanups() {
	t.mu.Lock()
	cleanups := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}
