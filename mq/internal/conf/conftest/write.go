package conftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes lines ("key=value" each) as the properties file name in a fresh temp dir of t
// and returns its path; a failed write fails the test.
func Write(t testing.TB, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
