package broker

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// slaveSyncInterval is the period of a slave's SyncAll. Java: BrokerController#handleSlaveSynchronize
// (scheduleAtFixedRate(syncAll, 3 s, 10 s)).
const slaveSyncInterval = 10 * time.Second

// slaveSyncTimeout bounds each of SyncAll's four requests (Java: 3 s).
const slaveSyncTimeout = 3 * time.Second

// SlaveSynchronize copies a master's configuration onto its slave: the topic table, the
// consumer offsets, the delay offsets and the subscription groups, each from the master's
// admin answer (GET_ALL_TOPIC_CONFIG, GET_ALL_CONSUMER_OFFSET, GET_ALL_DELAY_OFFSET,
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG), persisted to the slave's config files. The master's
// address comes from the name server's registration answer (masterAddr). A slave runs it at
// Start and every 10 s, unless its store runs with ManualServices (then the caller calls
// SyncAll). Mirrors org.apache.rocketmq.broker.slave.SlaveSynchronize.
type SlaveSynchronize struct {
	b          *BrokerController
	masterAddr atomic.Value // string
	// timerMu is held by each pass of the 10 s timer; timerSuspended (guarded by it) makes the
	// timer's passes do nothing (SuspendTimer).
	timerMu        sync.Mutex
	timerSuspended bool
}

// SuspendTimer stops the slave's 10 s timer from syncing; it returns once no timer pass is
// running, so from then on only SyncAll called by hand copies the master's config (a test or
// chapter stepping the sync on real services). ResumeTimer undoes it. Deviation: Java has no
// such switch; it is ManualServices for this one timer.
func (s *SlaveSynchronize) SuspendTimer() { s.setTimerSuspended(true) }

// ResumeTimer lets the slave's 10 s timer sync again (after SuspendTimer).
func (s *SlaveSynchronize) ResumeTimer() { s.setTimerSuspended(false) }

func (s *SlaveSynchronize) setTimerSuspended(v bool) {
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	s.timerSuspended = v
}

// timerPass runs pass as one pass of the 10 s timer unless the timer is suspended.
func (s *SlaveSynchronize) timerPass(pass func()) {
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	if !s.timerSuspended {
		pass()
	}
}

func newSlaveSynchronize(b *BrokerController) *SlaveSynchronize { return &SlaveSynchronize{b: b} }

// MasterAddr is the master's remoting address synced from, "" while unknown.
func (s *SlaveSynchronize) MasterAddr() string {
	addr, _ := s.masterAddr.Load().(string)
	return addr
}

// SetMasterAddr sets the master's remoting address ("host:port"; "" when the registration
// answer names none: SyncAll then does nothing). Java: SlaveSynchronize#setMasterAddr.
func (s *SlaveSynchronize) SetMasterAddr(addr string) {
	old, _ := s.masterAddr.Swap(addr).(string)
	switch {
	case old == addr:
	case addr == "":
		s.b.log.Warn("slave synchronize: the name server names no master; not syncing", "oldMasterAddr", old)
	default:
		s.b.log.Info("slave synchronize: master address", "masterAddr", addr)
	}
}

// SyncAll runs the four syncs (each one is tried even when another fails) and returns their
// errors joined; without a master address it does nothing. It reports whether the topic table
// changed (the slave then registers again). Java: SlaveSynchronize#syncAll.
func (s *SlaveSynchronize) SyncAll() (topicsChanged bool, err error) {
	addr := s.MasterAddr()
	if addr == "" {
		return false, nil
	}
	if tr := s.b.tr; tr.Enabled() {
		tr.Step("SlaveSynchronize#syncAll", slog.String("brokerName", s.b.cfg.BrokerName),
			slog.Int64("brokerId", s.b.cfg.BrokerID), slog.Int64("masterBrokerId", masterID))
	}
	topicsChanged, errTopics := s.syncTopicConfig(addr)
	return topicsChanged, errors.Join(errTopics, s.syncConsumerOffset(addr), s.syncDelayOffset(addr),
		s.syncSubscriptionGroupConfig(addr))
}

// syncTopicConfig replaces the topic table with the master's when its DataVersion differs,
// and persists topics.json. Java: SlaveSynchronize#syncTopicConfig.
func (s *SlaveSynchronize) syncTopicConfig(addr string) (bool, error) {
	body, err := s.b.brokerOuterAPI.GetAllConfig(addr, protocol.GetAllTopicConfig, slaveSyncTimeout)
	if err != nil {
		return false, fmt.Errorf("sync topic config from %s: %w", addr, err)
	}
	tmp := NewTopicConfigManager(&s.b.cfg, nil, s.b.clock)
	if err := tmp.Decode(body); err != nil {
		return false, fmt.Errorf("sync topic config from %s: %w", addr, err)
	}
	m := s.b.topicConfigManager
	if !m.replace(tmp.snapshot(), tmp.DataVersion()) {
		return false, nil
	}
	s.b.log.Info("update slave topic config from master", "masterAddr", addr, "topics", len(tmp.snapshot()))
	return true, m.Persist()
}

// syncConsumerOffset puts the master's consumer offsets over the slave's, each topic@group
// whole, and persists consumerOffset.json. As in Java the master wins: an offset a consumer
// committed on the slave while the master was down, and that has not reached the master yet,
// goes back to the master's older value, or is dropped when the master's entry for that
// topic@group lacks the queue (the step lists both as rolledBack); the consumer
// still holds it in memory and its next persistAll sends it to the master, from which the next
// pass brings it back. Java: SlaveSynchronize#syncConsumerOffset.
func (s *SlaveSynchronize) syncConsumerOffset(addr string) error {
	body, err := s.b.brokerOuterAPI.GetAllConfig(addr, protocol.GetAllConsumerOffset, slaveSyncTimeout)
	if err != nil {
		return fmt.Errorf("sync consumer offsets from %s: %w", addr, err)
	}
	tmp := NewConsumerOffsetManager()
	if err := tmp.Decode(body); err != nil {
		return fmt.Errorf("sync consumer offsets from %s: %w", addr, err)
	}
	m := s.b.consumerOffsetManager
	table := tmp.OffsetTable()
	old := m.putAll(table)
	if tr := s.b.tr; tr.Enabled() {
		tr.Step("SlaveSynchronize#syncConsumerOffset", slog.String("offsets", formatOffsetTable(table, nil)),
			slog.String("rolledBack", formatOffsetTable(table, old)))
	}
	return m.Persist()
}

// formatOffsetTable renders a consumer offset table for a step line, keys and queue ids in
// order: "topic@group/queueId=offset ...". With old (the entries table replaced), only what the
// slave lost: the queues whose offset went down, as "topic@group/queueId=old->new", and those
// the replaced entry had and the master's lacks (an entry is replaced whole), as
// "topic@group/queueId=old->none".
func formatOffsetTable(table, old map[string]map[int32]store.QueueOffset) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(table)) {
		if old == nil {
			for _, q := range slices.Sorted(maps.Keys(table[k])) {
				fmt.Fprintf(&b, " %s/%d=%d", k, q, table[k][q])
			}
			continue
		}
		for _, q := range slices.Sorted(maps.Keys(old[k])) {
			was := old[k][q]
			switch v, ok := table[k][q]; {
			case !ok:
				fmt.Fprintf(&b, " %s/%d=%d->none", k, q, was)
			case was > v:
				fmt.Fprintf(&b, " %s/%d=%d->%d", k, q, was, v)
			}
		}
	}
	return strings.TrimPrefix(b.String(), " ")
}

// syncDelayOffset takes the master's delay offsets and writes delayOffset.json.
// Java: SlaveSynchronize#syncDelayOffset.
func (s *SlaveSynchronize) syncDelayOffset(addr string) error {
	sms := s.b.scheduleMessageService
	if sms == nil {
		return nil
	}
	body, err := s.b.brokerOuterAPI.GetAllConfig(addr, protocol.GetAllDelayOffset, slaveSyncTimeout)
	if err != nil {
		return fmt.Errorf("sync delay offsets from %s: %w", addr, err)
	}
	if err := sms.Decode(body); err != nil {
		return fmt.Errorf("sync delay offsets from %s: %w", addr, err)
	}
	return sms.Persist()
}

// syncSubscriptionGroupConfig replaces the subscription groups with the master's when its
// DataVersion differs, and persists subscriptionGroup.json.
// Java: SlaveSynchronize#syncSubscriptionGroupConfig.
func (s *SlaveSynchronize) syncSubscriptionGroupConfig(addr string) error {
	body, err := s.b.brokerOuterAPI.GetAllConfig(addr, protocol.GetAllSubscriptionGroupConfig, slaveSyncTimeout)
	if err != nil {
		return fmt.Errorf("sync subscription groups from %s: %w", addr, err)
	}
	tmp := NewSubscriptionGroupManager(&s.b.cfg, nil, s.b.clock)
	if err := tmp.Decode(body); err != nil {
		return fmt.Errorf("sync subscription groups from %s: %w", addr, err)
	}
	m := s.b.subscriptionGroupManager
	if !m.replace(tmp.snapshot(), tmp.DataVersion()) {
		return nil
	}
	s.b.log.Info("update slave subscription group config from master", "masterAddr", addr)
	return m.Persist()
}
