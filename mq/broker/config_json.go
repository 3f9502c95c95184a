package broker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// This file holds what the three config/*.json files share: their paths under the store root
// and the JSON dialect of fastjson, the library RocketMQ writes them with
// (store-formats.md §7.1, remoting-protocol.md §7.4):
//
//   - pretty-printed with one tab per level, `"key":value` with no space after the colon,
//     fields in alphabetical order;
//   - maps with integer keys (consumerOffset.json's queueId → offset) written with the keys
//     UNQUOTED, `{0:12,1:3}`, which is not standard JSON; fastjson prints such a map on one
//     line and puts its closing brace on the next:
//
//	{
//		"offsetTable":{
//			"TopicTest@group1":{0:250,1:248
//			}
//		}
//	}
//
// Our files are written in that dialect, so a Java broker reads them and a reader can compare
// them with a Java broker's (the pretty layout by fastjson.Pretty, the integer-keyed maps by the
// manager's Encode); they are read by fastjson.Unmarshal, bare numeric keys quoted first, so
// both a Java-written file and a standard-JSON one load.

// Paths of the config files under the store root (storePathRootDir/config/...).
// Java: BrokerPathConfigHelper#getTopicConfigPath, #getConsumerOffsetPath,
// #getSubscriptionGroupPath.
func TopicConfigPath(rootDir string) string { return filepath.Join(rootDir, "config", "topics.json") }

// ConsumerOffsetPath is <rootDir>/config/consumerOffset.json.
func ConsumerOffsetPath(rootDir string) string {
	return filepath.Join(rootDir, "config", "consumerOffset.json")
}

// SubscriptionGroupPath is <rootDir>/config/subscriptionGroup.json.
func SubscriptionGroupPath(rootDir string) string {
	return filepath.Join(rootDir, "config", "subscriptionGroup.json")
}

// configFile is one manager's config/*.json file: its path ("" = kept in memory only), a mutex
// serializing writes (a write encodes the table inside it, so the last file written holds the
// newest table), and a flag set when a write failed, so the periodic persist pass retries it.
// Java: ConfigManager (load, loadBak, persist); the atomic write and the .bak fallback are
// internal/configfile's.
type configFile struct {
	mu    sync.Mutex
	path  string
	dirty atomic.Bool
}

func (f *configFile) setPath(p string) {
	f.mu.Lock()
	f.path = p
	f.mu.Unlock()
}

func (f *configFile) getPath() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.path
}

// store encodes and writes the file atomically (configfile.Store); a no-op without a path.
// Java: ConfigManager#persist.
func (f *configFile) store(encode func() ([]byte, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.path == "" {
		return nil
	}
	data, err := encode()
	if err == nil {
		err = configfile.Store(f.path, data)
	}
	f.dirty.Store(err != nil)
	if err != nil {
		return fmt.Errorf("broker: persist %s: %w", f.path, err)
	}
	return nil
}

// load reads the file, or its .bak when the file is missing, empty or does not decode, and
// returns the path used ("" when neither exists: a first start). Both copies present and
// undecodable is an error naming the file. Java: ConfigManager#load, #loadBak.
//
// Deviation: when the file does not decode and there is no .bak, Java's loadBak reports
// success and the broker starts with the built-ins only (its next persist then overwrites the
// damaged file); we refuse to start, so the operator sees the file before anything is lost.
func (f *configFile) load(decode func([]byte) error) (string, error) {
	p := f.getPath()
	if p == "" {
		return "", nil
	}
	used, err := configfile.Load(p, decode)
	if err != nil {
		return "", fmt.Errorf("broker: load %s: %w", p, err)
	}
	return used, nil
}

// retry writes the file again when its last write failed (a no-op otherwise); persist is the
// manager's Persist.
func (f *configFile) retry(persist func() error) error {
	if !f.dirty.Load() {
		return nil
	}
	return persist()
}

// persistLogged runs persist after a change; a failure is logged as "persist <what> failed" and
// retried by the broker's periodic persist pass (Java logs it and waits for the next change).
func (f *configFile) persistLogged(persist func() error, log *slog.Logger, what string) {
	if err := persist(); err != nil {
		log.Error("persist "+what+" failed", "err", err)
	}
}

// configManager is the part of Java's ConfigManager (the class TopicConfigManager,
// SubscriptionGroupManager and ConsumerOffsetManager extend) that those three managers embed:
// their file and the methods over their own Encode and Decode, which the manager's constructor
// sets.
type configManager struct {
	// file persists the table (path, write serialization, retry flag).
	file   configFile
	encode func() ([]byte, error)
	decode func([]byte) error
	log    *slog.Logger
	// what names the table in the log ("topic config").
	what string
}

// SetConfigFilePath names the file the table is loaded from and persisted to
// (<storePathRootDir>/config/topics.json, subscriptionGroup.json or consumerOffset.json; ""
// keeps it in memory only).
func (c *configManager) SetConfigFilePath(path string) { c.file.setPath(path) }

// ConfigFilePath returns the file set by SetConfigFilePath. Java: ConfigManager#configFilePath.
func (c *configManager) ConfigFilePath() string { return c.file.getPath() }

// Load reads the table from its file (or the file's .bak), see the manager's Decode, and
// returns the file used ("" when neither exists: a first start). Called once, before the
// broker starts. Java: ConfigManager#load.
func (c *configManager) Load() (string, error) { return c.file.load(c.decode) }

// Persist writes the whole table to its file atomically. Java: ConfigManager#persist.
func (c *configManager) Persist() error { return c.file.store(c.encode) }

// PersistIfDirty retries a write that failed (a no-op otherwise).
func (c *configManager) PersistIfDirty() error { return c.file.retry(c.Persist) }

// persistChange persists after a change (see configFile.persistLogged).
func (c *configManager) persistChange() { c.file.persistLogged(c.Persist, c.log, c.what) }

// tableFile is topics.json or subscriptionGroup.json as read (a struct with the file's
// DataVersion and its table): entries is the table of raw entries by name.
type tableFile interface {
	entries() map[string]json.RawMessage
}

// decodeTable reads data — fastjson's dialect, unquoted numeric keys and unknown fields accepted
// — into f and decodes each entry of its table with entry, which gets the map key to default the
// entry's name from; null entries are skipped. On error nothing is returned.
// Java: ConfigManager#decode's shape (assignNewOne for each entry).
func decodeTable[T any](data []byte, f tableFile, entry func(name string, raw json.RawMessage) (T, error)) (map[string]T, error) {
	if err := fastjson.Unmarshal(data, f); err != nil {
		return nil, err
	}
	loaded := make(map[string]T, len(f.entries()))
	for name, raw := range f.entries() {
		if string(raw) == "null" {
			continue
		}
		v, err := entry(name, raw)
		if err != nil {
			return nil, err
		}
		loaded[name] = v
	}
	return loaded, nil
}

// versionedTable is a manager's table of configs by name and the DataVersion that goes with
// it (the name server compares it to tell a changed registration from a heartbeat); mu guards
// both (Java: the manager's ConcurrentHashMap, its lock and its DataVersion).
type versionedTable[V any] struct {
	mu          sync.RWMutex
	table       map[string]V
	dataVersion protocol.DataVersion
}

// DataVersion returns a copy of the DataVersion.
func (t *versionedTable[V]) DataVersion() protocol.DataVersion {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.dataVersion
}

// snapshot returns a copy of the table.
func (t *versionedTable[V]) snapshot() map[string]V {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return maps.Clone(t.table)
}

// replace makes loaded the table and dv its DataVersion, unless dv is the DataVersion already
// held; it reports whether it replaced. Java: SlaveSynchronize#syncTopicConfig and
// #syncSubscriptionGroupConfig (clear, putAll, assignNewOne when the versions differ).
func (t *versionedTable[V]) replace(loaded map[string]V, dv protocol.DataVersion) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dataVersion == dv {
		return false
	}
	t.table = maps.Clone(loaded)
	t.dataVersion = dv
	return true
}

// merge puts loaded over the table and adopts the file's DataVersion when it had one (Java:
// ConfigManager#decode's putAll and dataVersion.assignNewOne).
func (t *versionedTable[V]) merge(loaded map[string]V, fileDV *protocol.DataVersion) {
	t.mu.Lock()
	defer t.mu.Unlock()
	maps.Copy(t.table, loaded)
	if fileDV != nil {
		t.dataVersion = *fileDV
	}
}
