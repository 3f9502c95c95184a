package tracetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// StepLabels returns the label of every step line ("[component] NN Label k=v ..."), in order.
// A line may start with the chapter it belongs to ("ch03 [broker-a] NN Label ...", the closing
// tour's lines).
func StepLabels(log string) []string {
	var labels []string
	for _, line := range strings.Split(log, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && chapterWord(f[0]) {
			f = f[1:]
		}
		if len(f) >= 3 && strings.HasPrefix(f[0], "[") && strings.HasSuffix(f[0], "]") && strings.Contains(f[2], "#") {
			labels = append(labels, f[2])
		}
	}
	return labels
}

// chapterWord reports whether w names a chapter: "ch" and two digits, or "ch??" (the tour's
// word for a label no chapter traces).
func chapterWord(w string) bool {
	if len(w) != 4 || !strings.HasPrefix(w, "ch") {
		return false
	}
	d := w[2:]
	return d == "??" || (d[0] >= '0' && d[0] <= '9' && d[1] >= '0' && d[1] <= '9')
}

// CompareGolden compares a chapter run's output with the golden file at path: first the
// sequence of step labels (the flow), then every line (the values). With update it first
// rewrites the file from got (review the diff before keeping it).
func CompareGolden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		t.Logf("rewrote %s", path)
	}
	golden, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	if d := cmp.Diff(StepLabels(string(golden)), StepLabels(string(got))); d != "" {
		t.Fatalf("the flow changed: step labels differ from %s (-golden +run):\n%s", path, d)
	}
	if d := cmp.Diff(strings.Split(string(golden), "\n"), strings.Split(string(got), "\n")); d != "" {
		t.Fatalf("the log differs from %s (-golden +run):\n%s", path, d)
	}
}
