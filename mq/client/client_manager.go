package client

import (
	"log/slog"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// MQClientManager keeps the process's MQClientInstances, one per clientId, so that every
// producer and consumer with the same clientId (ip@instanceName) shares one set of connections,
// one route table and one heartbeat.
// Mirrors org.apache.rocketmq.client.impl.MQClientManager. mu guards the table and the index.
type MQClientManager struct {
	mu    sync.Mutex
	table map[string]*MQClientInstance
	index int
}

var manager = &MQClientManager{table: map[string]*MQClientInstance{}}

// GetMQClientManager returns the process-wide manager. Java: MQClientManager#getInstance.
func GetMQClientManager() *MQClientManager { return manager }

// GetOrCreateMQClientInstance returns the instance of cfg's clientId, creating it (with a copy
// of cfg, defaults filled in, and opts) if there is none. The instance is not started. The
// first registrant's config and options win: a later caller with the same clientId gets the
// existing instance, whatever cfg and opts it passes (its Logger traces this lookup only).
// Java: MQClientManager#getOrCreateMQClientInstance (options are Go's; Java has none).
func (m *MQClientManager) GetOrCreateMQClientInstance(cfg ClientConfig, opts Options) *MQClientInstance {
	cfg = cfg.WithDefaults()
	id := cfg.BuildMQClientID()
	m.mu.Lock()
	defer m.mu.Unlock()
	inst, ok := m.table[id]
	if tr := trace.New(opts.Logger, "client"); tr.Enabled() {
		tr.Step("MQClientManager#getOrCreateMQClientInstance", slog.String("clientId", id), slog.Bool("created", !ok))
	}
	if ok {
		return inst
	}
	inst = NewMQClientInstance(cfg, opts, m.index, id)
	m.index++
	m.table[id] = inst
	return inst
}

// RemoveClientFactory forgets the instance of clientID. Java: MQClientManager#removeClientFactory.
func (m *MQClientManager) RemoveClientFactory(clientID string) {
	m.mu.Lock()
	delete(m.table, clientID)
	m.mu.Unlock()
}

// remove forgets inst if it is still the instance of its clientId (called by its Shutdown, so a
// newer instance of the same clientId is left alone).
func (m *MQClientManager) remove(inst *MQClientInstance) {
	m.mu.Lock()
	if m.table[inst.clientID] == inst {
		delete(m.table, inst.clientID)
	}
	m.mu.Unlock()
}
