package namesrv

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// kvConfigSerializeWrapper is the kvConfigPath file: {"configTable":{"namespace":{"key":"value"}}}.
// Mirrors org.apache.rocketmq.namesrv.kvconfig.KVConfigSerializeWrapper.
type kvConfigSerializeWrapper struct {
	ConfigTable map[string]map[string]string `json:"configTable"`
}

// KVConfigManager holds the name server's namespaced key/value configuration (PUT_KV_CONFIG,
// GET_KV_CONFIG, DELETE_KV_CONFIG, GET_KVLIST_BY_NAMESPACE) and writes the whole table to
// kvConfigPath after every change. The ORDER_TOPIC_CONFIG namespace is the one RocketMQ itself
// reads: topic → "brokerName:queueNums;..." for ordered topics.
// Mirrors org.apache.rocketmq.namesrv.kvconfig.KVConfigManager.
//
// Locks: mu guards configTable (Java: ReentrantReadWriteLock); Persist holds persistMu across
// encoding (under mu's read lock) and writing, so the file always holds a whole, latest table.
type KVConfigManager struct {
	path string
	log  *slog.Logger

	mu          sync.RWMutex
	configTable map[string]map[string]string // namespace → key → value
	// persistMu orders writers of the file: a later Persist encodes a later table and writes last.
	persistMu sync.Mutex
}

// NewKVConfigManager returns an empty manager persisting to path. log may be nil.
func NewKVConfigManager(path string, log *slog.Logger) *KVConfigManager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &KVConfigManager{path: path, log: log, configTable: map[string]map[string]string{}}
}

// Load reads the file (or its .bak copy) into the table. A missing file is a first start, not an
// error; a file that is not the JSON above is an error, and the name server does not start.
// Java: KVConfigManager#load.
//
// Deviation: Java reads only kvConfigPath; we fall back to kvConfigPath.bak (written by
// configfile.Store) when the file is missing or corrupt.
func (m *KVConfigManager) Load() error {
	_, err := configfile.Load(m.path, func(data []byte) error {
		var w kvConfigSerializeWrapper
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		for ns, kv := range w.ConfigTable {
			t := m.configTable[ns]
			if t == nil {
				t = map[string]string{}
				m.configTable[ns] = t
			}
			for k, v := range kv {
				t[k] = v
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("namesrv: load kv config: %w", err)
	}
	return nil
}

// PutKVConfig sets namespace/key to value (creating the namespace) and persists the table.
// The in-memory change stands even when persisting fails; the error is returned.
// Java: KVConfigManager#putKVConfig.
func (m *KVConfigManager) PutKVConfig(namespace, key, value string) error {
	m.mu.Lock()
	t := m.configTable[namespace]
	if t == nil {
		t = map[string]string{}
		m.configTable[namespace] = t
	}
	_, existed := t[key]
	t[key] = value
	m.mu.Unlock()
	m.log.Info("putKVConfig", "namespace", namespace, "key", key, "value", value, "update", existed)
	return m.Persist()
}

// DeleteKVConfig removes namespace/key (an empty namespace stays, as in Java) and persists.
// Java: KVConfigManager#deleteKVConfig.
func (m *KVConfigManager) DeleteKVConfig(namespace, key string) error {
	m.mu.Lock()
	if t := m.configTable[namespace]; t != nil {
		delete(t, key)
	}
	m.mu.Unlock()
	m.log.Info("deleteKVConfig", "namespace", namespace, "key", key)
	return m.Persist()
}

// GetKVConfig returns the value of namespace/key and whether it exists.
// Java: KVConfigManager#getKVConfig (null when absent).
func (m *KVConfigManager) GetKVConfig(namespace, key string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.configTable[namespace][key]
	return v, ok
}

// GetKVListByNamespace returns the namespace's items as a KVTable body ({"table":{...}}), or nil
// when the namespace does not exist. Java: KVConfigManager#getKVListByNamespace.
func (m *KVConfigManager) GetKVListByNamespace(namespace string) []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.configTable[namespace]
	if !ok {
		return nil
	}
	return (&protocol.KVTable{Table: t}).Encode()
}

// Persist writes the whole table to the file, atomically (configfile.Store).
// Java: KVConfigManager#persist.
func (m *KVConfigManager) Persist() error {
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	m.mu.RLock()
	data, err := json.Marshal(&kvConfigSerializeWrapper{ConfigTable: m.configTable})
	m.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("namesrv: encode kv config: %w", err)
	}
	if err := configfile.Store(m.path, data); err != nil {
		return fmt.Errorf("namesrv: persist kv config: %w", err)
	}
	return nil
}
