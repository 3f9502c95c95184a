package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Environment of the fault test's children: the store directory (its presence makes the test
// binary a child), the broker role and the name server's address.
const (
	crashDirEnv     = "ROCKETMQ_GO_CH09_CRASH_BROKER"
	crashRoleEnv    = "ROCKETMQ_GO_CH09_CRASH_ROLE"
	crashNamesrvEnv = "ROCKETMQ_GO_CH09_CRASH_NAMESRV"
	crashTopic      = "CrashHA"
)

func TestMain(m *testing.M) {
	mqtest.ChildMain(m, crashDirEnv, func(dir string) int {
		return crashBroker(dir, os.Getenv(crashRoleEnv), os.Getenv(crashNamesrvEnv))
	})
}

// crashBroker is a child: broker-a as role (SYNC_MASTER, brokerId 0, or SLAVE, brokerId 1)
// over dir, registered with the name server at nsAddr, every service running on the wall
// clock (the slave learns its master's HA address from the registration answer); it reports
// its address and serves until killed.
func crashBroker(dir, role, nsAddr string) int {
	bc := embedded.BrokerConfig(brokerName, nsAddr)
	bc.BrokerClusterName = clusterName
	if role == store.Slave {
		bc.BrokerID = 1
	}
	sc := embedded.SmallStoreConfig(dir)
	sc.StorePathCommitLog = filepath.Join(dir, "commitlog")
	sc.BrokerRole = role
	sc.HaListenPort = 0
	return mqtest.ServeBroker(bc, sc)
}

// TestKillMasterDuringSyncMasterSends asks: with SYNC_MASTER, is an acknowledged message safe
// when the master's machine dies? It runs a SYNC_MASTER and its slave as child processes with
// all their services on, sends from 4 goroutines and kills the master with SIGKILL while
// sends are in flight. Then every message answered SEND_OK — each answer waited for the
// slave's acknowledgement — must be readable from the slave: the name server's route lists
// broker-a with the slave alone, and a fresh push consumer, consuming from the first offset,
// receives every acknowledged message's body from it. (Sends answered FLUSH_SLAVE_TIMEOUT or
// unanswered when the master died promise nothing and are not counted.)
// Java: CommitLog#submitReplicaRequest, GroupTransferService#doWaitTransfer.
func TestKillMasterDuringSyncMasterSends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	srv := mqtest.MustStartServers(t, dir)
	ns := srv.Namesrv.Addr()
	master := mqtest.MustStartChild(t, crashDirEnv+"="+filepath.Join(dir, "master"), crashRoleEnv+"="+store.SyncMaster,
		crashNamesrvEnv+"="+ns)
	// The topic exists before the slave starts: its SlaveSynchronize copies it at start, so the
	// slave can serve pulls of it once the master is gone.
	require.NoError(t, mqtest.CreateTopic(srv.Client, master.Addr, crashTopic, 4, protocol.PermRead|protocol.PermWrite))
	slave := mqtest.MustStartChild(t, crashDirEnv+"="+filepath.Join(dir, "slave"), crashRoleEnv+"="+store.Slave,
		crashNamesrvEnv+"="+ns)

	// SEND_OK only once the slave follows (before that: SLAVE_NOT_AVAILABLE).
	probe := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer probe.Shutdown()
	require.Eventually(t, func() bool {
		resp, err := mqtest.Invoke(probe, master.Addr, sendMessage(crashTopic, "probe", "probe"))
		return err == nil && resp.Code == protocol.Success
	}, 30*time.Second, 10*time.Millisecond, "the SYNC_MASTER never answered SEND_OK: %s", slave.Output())

	senders := mqtest.StartSenders(mqtest.SendLoad{Addr: master.Addr, Topic: crashTopic, Goroutines: 4,
		Key: func(g, i int) string { return fmt.Sprintf("G%d-%d", g, i) }})
	require.Eventually(t, func() bool { return senders.Acked() >= 1000 }, 60*time.Second, time.Millisecond)
	master.Kill() // sends are in flight
	acked := senders.Stop()
	t.Logf("%d sends acknowledged SEND_OK before the kill", len(acked))

	waitSlaveAlone(t, srv.Client, ns, crashTopic, slave.Addr)
	c := startCollector(t, ns, "ch09-crash", crashTopic, func(m *primitive.MessageExt) string { return string(m.Body) })
	missing := func() []string {
		got := c.received()
		var out []string
		for key := range acked {
			if !got["body-"+key] {
				out = append(out, key)
			}
		}
		return out
	}
	for deadline := time.Now().Add(60 * time.Second); len(missing()) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if m := missing(); len(m) > 0 {
		t.Fatalf("%d of %d acknowledged messages not received from the slave, e.g. %s", len(m), len(acked),
			strings.Join(m[:min(5, len(m))], ", "))
	}
}
