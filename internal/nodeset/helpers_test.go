package nodeset_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// markChildren puts a variable unique to the test into the environment,
// which every child the test starts inherits, and returns a check that no
// process carrying it is left.
func markChildren(t *testing.T) func() {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	mark := "ADMISSION_CONFORMANCE_TEST_MARK=" + hex.EncodeToString(b)
	k, v, _ := strings.Cut(mark, "=")
	t.Setenv(k, v)
	self := os.Getpid()
	return func() {
		t.Helper()
		procs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range procs {
			if p == filepathOfSelf(self) {
				continue
			}
			env, err := os.ReadFile(p)
			if err == nil && strings.Contains("\x00"+string(env)+"\x00", "\x00"+mark+"\x00") {
				cmdline, _ := os.ReadFile(strings.TrimSuffix(p, "environ") + "cmdline")
				t.Errorf("child left running: %s (%s)", p, strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
	}
}

func filepathOfSelf(pid int) string {
	return filepath.Join("/proc", strconv.Itoa(pid), "environ")
}
