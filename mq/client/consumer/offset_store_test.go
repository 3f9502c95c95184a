package consumer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestLocalFileOffsetStorePersistAndLoad pins LocalFileOffsetStore#persistAll and #load: the
// file lives at <dir>/<clientId>/<group>/offsets.json, holds only the queues asked for, in the
// documented JSON form (hand-written fixture below), no .tmp is left behind, and a new store
// reads the offsets back.
func TestLocalFileOffsetStorePersistAndLoad(t *testing.T) {
	dir := t.TempDir()
	q0 := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}
	q1 := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}
	s := NewLocalFileOffsetStore(dir, "127.0.0.1@c1", "g", nil, nil)
	require.Equal(t, filepath.Join(dir, "127.0.0.1@c1", "g", "offsets.json"), s.Path())
	s.UpdateOffset(q0, 3, false)
	s.UpdateOffset(q1, 7, false)
	s.PersistAll([]primitive.MessageQueue{q0})

	data, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	require.JSONEq(t, `{"offsetTable":{"{\"topic\":\"T\",\"brokerName\":\"broker-a\",\"queueId\":0}":3}}`, string(data))
	_, err = os.Stat(s.Path() + ".tmp")
	require.ErrorIs(t, err, os.ErrNotExist, "the temp file was renamed")

	s2 := NewLocalFileOffsetStore(dir, "127.0.0.1@c1", "g", nil, nil)
	require.NoError(t, s2.Load())
	require.Equal(t, int64(3), s2.ReadOffset(q0, ReadFromMemory))
	require.Equal(t, int64(-1), s2.ReadOffset(q1, ReadFromMemory), "q1 was not persisted")

	// A second persist keeps the previous file as .bak.
	s.UpdateOffset(q0, 4, false)
	s.PersistAll([]primitive.MessageQueue{q0})
	bak, err := os.ReadFile(s.Path() + ".bak")
	require.NoError(t, err)
	require.Equal(t, data, bak)
	require.Equal(t, int64(4), NewLocalFileOffsetStore(dir, "127.0.0.1@c1", "g", nil, nil).ReadOffset(q0, ReadFromStore))
}

// TestLocalFileOffsetStoreCorruptFileFallsBackToBak pins LocalFileOffsetStore#load's fallback
// (Java: readLocalOffsetBak): a main file that does not parse is ignored in favour of .bak;
// with both corrupt, Load fails rather than starting from nothing.
func TestLocalFileOffsetStoreCorruptFileFallsBackToBak(t *testing.T) {
	dir := t.TempDir()
	q := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 2}
	s := NewLocalFileOffsetStore(dir, "cid", "g", nil, nil)
	s.UpdateOffset(q, 5, false)
	s.PersistAll([]primitive.MessageQueue{q})
	s.UpdateOffset(q, 9, false)
	s.PersistAll([]primitive.MessageQueue{q}) // .bak now holds 5, the file 9
	require.NoError(t, os.WriteFile(s.Path(), []byte(`{"offsetTable":{`), 0o644))

	s2 := NewLocalFileOffsetStore(dir, "cid", "g", nil, nil)
	require.NoError(t, s2.Load())
	require.Equal(t, int64(5), s2.ReadOffset(q, ReadFromMemory))

	require.NoError(t, os.WriteFile(s.Path()+".bak", []byte("garbage"), 0o644))
	require.Error(t, NewLocalFileOffsetStore(dir, "cid", "g", nil, nil).Load())
}

// TestLocalFileOffsetStoreMissingFileIsAFirstStart pins that no file is not an error.
func TestLocalFileOffsetStoreMissingFileIsAFirstStart(t *testing.T) {
	s := NewLocalFileOffsetStore(t.TempDir(), "cid", "g", nil, nil)
	require.NoError(t, s.Load())
	require.Equal(t, int64(-1), s.ReadOffset(primitive.MessageQueue{Topic: "T"}, MemoryFirstThenStore))
}
