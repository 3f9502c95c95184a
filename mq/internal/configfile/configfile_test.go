package configfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func decodeInto(v *map[string]int) func([]byte) error {
	return func(b []byte) error { return json.Unmarshal(b, v) }
}

// Each Store keeps the previous version as .bak and leaves no .tmp (MixAll#string2File).
func TestStoreKeepsBackup(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config", "topics.json")
	require.NoError(t, Store(p, []byte(`{"a":1}`)))
	require.NoError(t, Store(p, []byte(`{"a":2}`)))
	cur, _ := os.ReadFile(p)
	bak, _ := os.ReadFile(p + ".bak")
	require.Equal(t, `{"a":2}`, string(cur))
	require.Equal(t, `{"a":1}`, string(bak))
	require.NoFileExists(t, p+".tmp")
}

// A corrupt main file falls back to .bak (ConfigManager#loadBak); no file at all is a first start.
func TestLoadFallsBackToBak(t *testing.T) {
	p := filepath.Join(t.TempDir(), "consumerOffset.json")
	var m map[string]int
	used, err := Load(p, decodeInto(&m))
	require.NoError(t, err)
	require.Empty(t, used)

	require.NoError(t, Store(p, []byte(`{"a":1}`)))
	require.NoError(t, Store(p, []byte(`{"a":2}`)))
	require.NoError(t, os.WriteFile(p, []byte(`{"a":`), 0o644)) // torn write
	used, err = Load(p, decodeInto(&m))
	require.NoError(t, err)
	require.Equal(t, p+".bak", used)
	require.Equal(t, map[string]int{"a": 1}, m)

	require.NoError(t, os.WriteFile(p+".bak", []byte(`garbage`), 0o644))
	_, err = Load(p, decodeInto(&m))
	require.Error(t, err, "both copies corrupt must be an error, not an empty config")
}
