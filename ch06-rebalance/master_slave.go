package main

import (
	"fmt"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
)

// totalPhysicalMemory is the memory the brokers' stores take as the machine's (store
// Options.TotalPhysicalMemory): 10 000 bytes, so that a consumer more than 4 000 bytes behind
// the end of the log (accessMessageInMemoryMaxRatio, 40 %) reads what is no longer in memory.
const totalPhysicalMemory = 10_000

// bigBody is the body size of section 6's messages: 1 KiB, so that two of them put a consumer
// beyond the 4 000-byte window.
const bigBody = 1024

// masterSlave is what section 6 adds: the slave of broker-a (the cluster shuts it down) and the
// master's side of their HA connection (nil once the master went down).
type masterSlave struct {
	s     *scenario
	slave *broker.BrokerController
	conn  *ha.HAConnection
}

// replicate plays the HA passes until the slave holds the master's whole log.
func (m *masterSlave) replicate() error {
	if m.conn == nil {
		return nil
	}
	_, err := mqtest.Replicate(m.conn, m.s.Master(), m.slave)
	return err
}

// masterSlave is section 6.
func (s *scenario) masterSlave() error {
	mqtest.Say(s.out, "== 6. 主从 — a slave of %s; B pulls from it while the master lags; progress goes to the master and is synced to the slave ==", brokerName)
	if err := s.startSlave(); err != nil {
		return err
	}
	slave := s.ms.slave
	mqtest.Say(s.out, "the slave started and copied the master's log (HA, chapter 9; not traced); its SlaveSynchronize pass (every 10 s, here by hand):")
	if err := s.syncAll(); err != nil {
		return err
	}
	b := s.members.Get("B")
	mqtest.Say(s.out, "B refreshes its routes (they list the slave now) and heartbeats to both; the slave registers B and tells it:")
	b.arm()
	b.c.Instance().UpdateTopicRouteInfoFromNameServer(topicName)
	b.c.Instance().SendHeartbeatToAllBrokerWithLock()
	if err := s.letThrough(b); err != nil {
		return err
	}
	mqtest.Say(s.out, "(B's RebalanceService pass would change nothing: the slave lists the same one member; not played)")

	mqtest.Say(s.out, "-- the master lags: slaveReadEnable=true, 8 messages of 1 KiB (not traced), copied to the slave --")
	s.Master().BrokerConfig().SlaveReadEnable = true
	if err := s.produceSized(8, bigBody); err != nil {
		return err
	}
	q0 := primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: 0}
	mqtest.Say(s.out, "B pulls queue 0 from the master, which finds it more than 40 %% of its memory behind and suggests the slave:")
	b.c.PullMessageService().DoPullQueue(q0)
	if err := s.produce(4); err != nil {
		return err
	}
	mqtest.Say(s.out, "1 more message per queue (not traced); B's next pull of queue 0 goes to the slave, which sends it back to the master:")
	b.c.PullMessageService().DoPullQueue(q0)

	mqtest.Say(s.out, "-- progress: B's persist task sends its offsets to the master; the slave's next pass copies them --")
	b.c.Instance().RunPersistConsumerOffsetTask()
	if err := s.waitPersisted(b, s.Master()); err != nil {
		return err
	}
	if err := s.syncAll(); err != nil {
		return err
	}
	s.offsetsTable("TopicTest offsets of the group on both brokers", "master", "slave")

	mqtest.Say(s.out, "-- the master goes down (not traced); B pulls queue 1 from the slave, and its offsets go to the slave --")
	if err := s.stopMaster(); err != nil {
		return err
	}
	b.c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: 1})
	b.c.Instance().RunPersistConsumerOffsetTask()
	if err := s.waitPersisted(b, slave); err != nil {
		return err
	}
	s.offsetsTable("TopicTest offsets while the master is down", "master: down", "slave")

	mqtest.Say(s.out, "-- the master comes back (not traced); the slave's pass puts the master's table over its own, then B's next persist brings the master up to date --")
	if err := s.restartMaster(); err != nil {
		return err
	}
	if err := s.syncAll(); err != nil {
		return err
	}
	s.offsetsTable("after the slave's pass: the offsets the slave took while the master was down are rolled back", "master", "slave")
	b.c.Instance().RunPersistConsumerOffsetTask()
	if err := s.waitPersisted(b, s.Master()); err != nil {
		return err
	}
	if err := s.syncAll(); err != nil {
		return err
	}
	s.offsetsTable("after B's persist and the slave's next pass", "master", "slave")
	return nil
}

// startSlave starts broker-a's slave (untraced), connects it and copies the master's log.
func (s *scenario) startSlave() (err error) {
	s.stage.Untraced(func() {
		var slave *broker.BrokerController
		if slave, err = s.Cluster.StartSlave(0); err != nil {
			return
		}
		s.ms = &masterSlave{s: s, slave: slave}
		if s.ms.conn, err = mqtest.ConnectSlave(s.Master(), slave); err != nil {
			return
		}
		err = s.ms.replicate()
	})
	return err
}

// syncAll plays one pass of the slave's SlaveSynchronize (traced); when it copied new topics,
// the slave registers again (untraced).
func (s *scenario) syncAll() error {
	changed, err := s.ms.slave.SlaveSynchronize().SyncAll()
	if err != nil {
		return err
	}
	if changed {
		s.stage.Untraced(s.ms.slave.RegisterBrokerAll)
	}
	return nil
}

// stopMaster shuts the master down (it unregisters from the name server; its store stays) and
// lets B see the route without it (untraced).
func (s *scenario) stopMaster() error {
	s.stage.Untraced(func() {
		s.Cluster.StopMaster(0)
		s.ms.conn = nil
		s.masterDown = true
		s.members.Get("B").c.Instance().UpdateTopicRouteInfoFromNameServer(topicName)
	})
	return nil
}

// restartMaster starts broker-a again on its store (untraced); the slave registers to learn its
// new address, and B refreshes its route.
func (s *scenario) restartMaster() (err error) {
	s.stage.Untraced(func() {
		var b *broker.BrokerController
		if b, err = s.Cluster.StartMaster(0); err != nil {
			return
		}
		s.masterDown = false
		s.ms.slave.RegisterBrokerAll()
		if s.ms.slave.SlaveSynchronize().MasterAddr() != b.BrokerAddr() {
			err = fmt.Errorf("the slave does not follow the restarted master")
			return
		}
		s.members.Get("B").c.Instance().UpdateTopicRouteInfoFromNameServer(topicName)
	})
	return err
}

// produceSized is produce with bodies of size bytes.
func (s *scenario) produceSized(n, size int) error {
	s.bodySize = size
	defer func() { s.bodySize = 0 }()
	return s.produce(n)
}

// body is message i's body: "message i", padded with dots to bodySize (record prints the
// name and the size).
func (s *scenario) body(i int) string {
	b := fmt.Sprintf("message %d", i)
	if s.bodySize > len(b) {
		b += strings.Repeat(".", s.bodySize-len(b))
	}
	return b
}

// waitPersisted waits until broker b holds m's in-memory TopicTest offsets as the group's
// committed ones (UPDATE_CONSUMER_OFFSET is oneway).
func (s *scenario) waitPersisted(m *member, b *broker.BrokerController) error {
	want := map[int32]int64{}
	for q, v := range m.c.OffsetStore().CloneOffsetTable(topicName) {
		want[q.QueueID] = v
	}
	return waitOffsets(b, want)
}

// offsetsTable prints the group's committed TopicTest offsets on the master and the slave.
func (s *scenario) offsetsTable(title, masterName, slaveName string) {
	mqtest.Say(s.out, "%s:", title)
	t := mqtest.NewTable(s.out, "queue", masterName, slaveName)
	slave := s.ms.slave.ConsumerOffsetManager()
	for q := int32(0); q < queueNums; q++ {
		m := "-"
		if !s.masterDown {
			m = fmt.Sprint(s.Master().ConsumerOffsetManager().QueryOffset(group, topicName, q))
		}
		t.Row(q, m, slave.QueryOffset(group, topicName, q))
	}
	t.Render()
}
