package broker

import (
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// ProducerManager tracks producer groups and their channels from heartbeats (used later for
// transaction checks and request/reply pushes).
// Mirrors org.apache.rocketmq.broker.client.ProducerManager.
//
// One mutex guards groupChannelTable and clientChannelTable.
type ProducerManager struct {
	channelExpiredTimeout time.Duration
	log                   *slog.Logger
	clock                 clock.Clock // channel refresh times and expiry

	mu sync.Mutex
	// groupChannelTable: group → channel → info.
	groupChannelTable map[string]map[*remoting.Channel]*ClientChannelInfo
	// clientChannelTable: clientID → its latest channel (Java: for reply messages).
	clientChannelTable map[string]*remoting.Channel
}

// NewProducerManager returns an empty manager; clk (nil: the system clock) times channel refreshes.
func NewProducerManager(channelExpiredTimeout time.Duration, log *slog.Logger, clk clock.Clock) *ProducerManager {
	return &ProducerManager{
		channelExpiredTimeout: channelExpiredTimeout,
		log:                   orDiscard(log),
		clock:                 clock.Or(clk),
		groupChannelTable:     map[string]map[*remoting.Channel]*ClientChannelInfo{},
		clientChannelTable:    map[string]*remoting.Channel{},
	}
}

// RegisterProducer records a heartbeat of group on info's channel.
// Java: ProducerManager#registerProducer.
func (m *ProducerManager) RegisterProducer(group string, info ClientChannelInfo) {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	chs := m.groupChannelTable[group]
	if chs == nil {
		chs = map[*remoting.Channel]*ClientChannelInfo{}
		m.groupChannelTable[group] = chs
	}
	found, ok := chs[info.Channel]
	if !ok {
		cp := info
		found = &cp
		chs[info.Channel] = found
		m.clientChannelTable[info.ClientID] = info.Channel
		m.log.Info("new producer connected", "group", group, "clientId", info.ClientID,
			"remoteAddr", info.Channel.RemoteAddr())
	}
	found.LastUpdateTimestamp = now
}

// UnregisterProducer removes info's channel from group. Java: ProducerManager#unregisterProducer.
func (m *ProducerManager) UnregisterProducer(group string, info ClientChannelInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	chs := m.groupChannelTable[group]
	if chs == nil {
		return
	}
	if old, ok := chs[info.Channel]; ok {
		delete(chs, info.Channel)
		if m.clientChannelTable[old.ClientID] == info.Channel {
			delete(m.clientChannelTable, old.ClientID)
		}
	}
	if len(chs) == 0 {
		delete(m.groupChannelTable, group)
	}
}

// DoChannelCloseEvent removes ch from every group. Java: ProducerManager#doChannelCloseEvent.
func (m *ProducerManager) DoChannelCloseEvent(remoteAddr string, ch *remoting.Channel) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeChannelLocked(ch)
}

func (m *ProducerManager) removeChannelLocked(ch *remoting.Channel) {
	for group, chs := range m.groupChannelTable {
		if old, ok := chs[ch]; ok {
			delete(chs, ch)
			if m.clientChannelTable[old.ClientID] == ch {
				delete(m.clientChannelTable, old.ClientID)
			}
			m.log.Info("producer channel closed", "group", group, "clientId", old.ClientID)
		}
		if len(chs) == 0 {
			delete(m.groupChannelTable, group)
		}
	}
}

// ScanNotActiveChannel closes and removes channels not refreshed for channelExpiredTimeout.
// Java: ProducerManager#scanNotActiveChannel.
func (m *ProducerManager) ScanNotActiveChannel() {
	now := m.clock.Now()
	var expired []*remoting.Channel
	m.mu.Lock()
	for _, chs := range m.groupChannelTable {
		for ch, info := range chs {
			if now.Sub(info.LastUpdateTimestamp) > m.channelExpiredTimeout {
				expired = append(expired, ch)
			}
		}
	}
	for _, ch := range expired {
		m.removeChannelLocked(ch)
	}
	m.mu.Unlock()
	for _, ch := range expired {
		m.log.Warn("producer channel expired, closing it", "remoteAddr", ch.RemoteAddr())
		_ = ch.Close()
	}
}

// GetAvailableChannel returns an active channel of group, or nil.
// Java: ProducerManager#getAvailableChannel.
func (m *ProducerManager) GetAvailableChannel(group string) *remoting.Channel {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ch := range m.groupChannelTable[group] {
		if ch.IsActive() {
			return ch
		}
	}
	return nil
}

// FindChannel returns clientID's channel, or nil. Java: ProducerManager#findChannel.
func (m *ProducerManager) FindChannel(clientID string) *remoting.Channel {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.clientChannelTable[clientID]
}

// GroupChannelCount returns how many channels group has (for tests and admin).
func (m *ProducerManager) GroupChannelCount(group string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.groupChannelTable[group])
}
