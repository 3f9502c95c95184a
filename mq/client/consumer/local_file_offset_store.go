package consumer

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// DefaultOffsetStoreDir is where Java keeps broadcasting offsets: ~/.rocketmq_offsets (the
// rocketmq.client.localOffsetStoreDir property). LocalFileOffsetStore has no default: the
// caller names the directory, so tests never write to a home directory.
const DefaultOffsetStoreDir = ".rocketmq_offsets"

// LocalFileOffsetStore keeps a broadcasting consumer's offsets in memory and in
// <dir>/<clientId>/<group>/offsets.json, written atomically (temp file, rename, .bak). The
// file is OffsetSerializeWrapper's JSON: {"offsetTable":{<MessageQueue as JSON>:offset}} — a
// fastjson map with object keys, which Java writes unquoted; this store writes and reads the
// form below instead (see Deviation).
//
//	{"offsetTable":{"{\"topic\":\"TopicTest\",\"brokerName\":\"broker-a\",\"queueId\":0}":3}}
//
// Deviation: Java's file has the MessageQueue object itself as the key (not valid JSON); here
// the key is that object as a JSON string, so encoding/json can read it back.
// Mirrors org.apache.rocketmq.client.consumer.store.LocalFileOffsetStore.
type LocalFileOffsetStore struct {
	path  string
	group string
	tr    *trace.Tracer
	log   *slog.Logger
	table offsetTable
}

// NewLocalFileOffsetStore returns the store of group for clientID under dir.
func NewLocalFileOffsetStore(dir, clientID, group string, tr *trace.Tracer, log *slog.Logger) *LocalFileOffsetStore {
	return &LocalFileOffsetStore{path: filepath.Join(dir, clientID, group, "offsets.json"), group: group, tr: tr, log: client.Options{Logger: log}.Log()}
}

// Path is the offsets file.
func (s *LocalFileOffsetStore) Path() string { return s.path }

type offsetFile struct {
	OffsetTable map[string]int64 `json:"offsetTable"`
}

// Load reads the file (or its .bak) into memory; a missing file is a first start.
// Java: LocalFileOffsetStore#load.
func (s *LocalFileOffsetStore) Load() error {
	offsets, used, err := s.readOffsetFile()
	for q, v := range offsets {
		s.table.update(q, v, false)
	}
	n := len(offsets)
	if s.tr.Enabled() {
		from := "none"
		if used != "" {
			from = filepath.Base(used)
		}
		s.tr.Step("LocalFileOffsetStore#load", slog.String("group", s.group), slog.String("file", from), slog.Int("queues", n))
	}
	if err != nil {
		return fmt.Errorf("load local offsets %s: %w", s.path, err)
	}
	return nil
}

// readOffsetFile reads the file, or its .bak when the file is missing or does not decode, and
// returns its offsets and the name of the file used ("" when neither exists).
// Java: LocalFileOffsetStore#readLocalOffset and #readLocalOffsetBak.
func (s *LocalFileOffsetStore) readOffsetFile() (map[primitive.MessageQueue]int64, string, error) {
	var offsets map[primitive.MessageQueue]int64
	used, err := configfile.Load(s.path, func(b []byte) error {
		var f offsetFile
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		offsets = make(map[primitive.MessageQueue]int64, len(f.OffsetTable))
		for k, v := range f.OffsetTable {
			var q primitive.MessageQueue
			if err := json.Unmarshal([]byte(k), &q); err != nil {
				return err
			}
			offsets[q] = v
		}
		return nil
	})
	return offsets, used, err
}

// UpdateOffset sets mq's offset in memory. Java: LocalFileOffsetStore#updateOffset.
func (s *LocalFileOffsetStore) UpdateOffset(mq primitive.MessageQueue, offset int64, increaseOnly bool) {
	s.table.updateTraced(s.tr, "LocalFileOffsetStore#updateOffset", mq, offset, increaseOnly)
}

// ReadOffset reads memory and/or the file; -1 when nothing is known.
// Java: LocalFileOffsetStore#readOffset.
func (s *LocalFileOffsetStore) ReadOffset(mq primitive.MessageQueue, t ReadOffsetType) int64 {
	if v, ok := s.table.readMemory(mq, t); ok {
		return v
	}
	offsets, _, err := s.readOffsetFile()
	if err != nil {
		return -1
	}
	if v, ok := offsets[mq]; ok {
		s.table.update(mq, v, false)
		return v
	}
	return -1
}

// EncodeOffsets renders the file body for the given offsets (keys sorted, indented).
func EncodeOffsets(table map[primitive.MessageQueue]int64) ([]byte, error) {
	f := offsetFile{OffsetTable: map[string]int64{}}
	for q, v := range table {
		k, err := json.Marshal(q)
		if err != nil {
			return nil, err
		}
		f.OffsetTable[string(k)] = v
	}
	return json.MarshalIndent(f, "", "\t")
}

// PersistAll writes the offsets of mqs to the file atomically. Java: LocalFileOffsetStore#persistAll.
func (s *LocalFileOffsetStore) PersistAll(mqs []primitive.MessageQueue) {
	if len(mqs) == 0 {
		return
	}
	table := s.table.clone("")
	keep := map[primitive.MessageQueue]int64{}
	for _, q := range mqs {
		if v, ok := table[q]; ok {
			keep[q] = v
		}
	}
	data, err := EncodeOffsets(keep)
	if err == nil {
		err = configfile.Store(s.path, data)
	}
	if s.tr.Enabled() {
		s.tr.Step("LocalFileOffsetStore#persistAll", slog.String("group", s.group), slog.String("file", "offsets.json"),
			slog.String("offsets", formatOffsets(sortedQueues(keep), keep)), slog.Bool("ok", err == nil))
	}
	if err != nil {
		s.log.Error("persistAll consumer offset exception", "path", s.path, "err", err)
	}
}

// Persist does nothing, as in Java (the file is written whole by PersistAll).
// Java: LocalFileOffsetStore#persist.
func (s *LocalFileOffsetStore) Persist(mq primitive.MessageQueue) {}

// RemoveOffset does nothing, as in Java (the file keeps the queue).
func (s *LocalFileOffsetStore) RemoveOffset(mq primitive.MessageQueue) {}

// CloneOffsetTable returns topic's memory offsets ("" = all).
func (s *LocalFileOffsetStore) CloneOffsetTable(topic string) map[primitive.MessageQueue]int64 {
	return s.table.clone(topic)
}
