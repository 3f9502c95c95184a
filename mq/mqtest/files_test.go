package mqtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/stretchr/testify/require"
)

// A log file is named by its first offset in 20 zero-padded digits (UtilAll#offset2FileName).
func TestFileName(t *testing.T) {
	require.Equal(t, "00000000000000000000", FileName(0))
	require.Equal(t, "00000000000000004096", FileName(4096))
	require.Equal(t, "00000000001073741824", FileName(1<<30))
}

// CopyDir copies every file and directory, contents intact.
func TestCopyDir(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "a", "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "top"), []byte("1"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a", "b", "deep"), []byte("22"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "empty"), 0o755))
	require.NoError(t, CopyDir(src, dst))
	data, err := os.ReadFile(filepath.Join(dst, "a", "b", "deep"))
	require.NoError(t, err)
	require.Equal(t, "22", string(data))
	data, err = os.ReadFile(filepath.Join(dst, "top"))
	require.NoError(t, err)
	require.Equal(t, "1", string(data))
	require.DirExists(t, filepath.Join(dst, "empty"))
}

// A Table prints what tablewriter prints for the same cells, each cell as fmt.Sprint shows it.
func TestTable(t *testing.T) {
	var got, want bytes.Buffer
	tb := NewTable(&got, "name", "n", "ok")
	tb.Row("broker-a", 4, true)
	tb.Row("broker-b", int64(-1), false)
	tb.Render()
	tw := tablewriter.NewWriter(&want)
	tw.Header("name", "n", "ok")
	require.NoError(t, tw.Append("broker-a", "4", "true"))
	require.NoError(t, tw.Append("broker-b", "-1", "false"))
	require.NoError(t, tw.Render())
	require.Equal(t, want.String(), got.String())
	require.Contains(t, got.String(), "broker-b")
}
