package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
)

// The benchmarks of replication, at the store level (a store and its HAService, as a broker
// wires them, with every service running on the wall clock; no remoting in between):
//
//	go test ./ch09-ha -run '^$' -bench . -benchtime 20000x
//
// Disk use stays bounded whatever b.N is: a pair holds at most benchChunk puts (~50 MiB of
// CommitLog on each side); past that the timer stops and a fresh pair takes over.

// benchFileSize is the CommitLog file size of the benchmark stores: 64 MiB, so a chunk of puts
// never rolls a file and a fresh slave is sent everything (an empty slave is sent the
// master's last file only).
const (
	benchFileSize = 64 << 20
	benchChunk    = 40000
	benchBodySize = 1024
)

// benchNode is one store and its HAService.
type benchNode struct {
	dir   string
	store *store.DefaultMessageStore
	ha    *ha.HAService
}

// benchStoreConfig: 64 MiB CommitLog files, warmed when created; an ephemeral HA port.
func benchStoreConfig(dir, role string) store.MessageStoreConfig {
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = dir
	sc.BrokerRole = role
	sc.MappedFileSizeCommitLog = benchFileSize
	sc.MappedFileSizeConsumeQueue = 300000 * store.ConsumeQueueUnitSize
	sc.WarmMappedFileEnable = true
	sc.HaListenPort = 0
	return sc
}

// startBenchNode loads and starts a store with its HAService (real services, wall clock).
func startBenchNode(b *testing.B, sc store.MessageStoreConfig) *benchNode {
	b.Helper()
	s, err := store.NewDefaultMessageStore(sc, store.Options{}, nil, nil)
	require.NoError(b, err)
	require.NoError(b, s.Load())
	h := ha.NewHAService(s, nil, nil)
	require.NoError(b, s.Start())
	require.NoError(b, h.Start())
	return &benchNode{dir: sc.StorePathRootDir, store: s, ha: h}
}

// stop shuts HA down, then the store, and removes its files.
func (n *benchNode) stop() {
	n.ha.Shutdown()
	n.store.Shutdown()
	_ = os.RemoveAll(n.dir)
}

func (n *benchNode) haAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.ha.AcceptSocketService().Port()))
}

// startBenchSlave starts a slave of master in a new dir under parent.
func startBenchSlave(b *testing.B, parent string, master *benchNode) *benchNode {
	b.Helper()
	sc := benchStoreConfig(filepath.Join(parent, "slave-"+strconv.FormatInt(time.Now().UnixNano(), 36)), store.Slave)
	sc.HaMasterAddress = master.haAddr()
	return startBenchNode(b, sc)
}

// benchMessage is a 1 KiB message for queue q of BenchTopic.
func benchMessage(q int32) *primitive.MessageExtBrokerInner {
	m := &primitive.MessageExtBrokerInner{}
	m.Topic = "BenchTopic"
	m.QueueID = q
	m.Body = []byte(strings.Repeat("x", benchBodySize))
	m.BornTimestamp = 1700000000000
	m.BornHost = "127.0.0.1:50000"
	m.StoreHost = "127.0.0.1:10911"
	m.PropertiesString = "TAGS\x01TagA\x02"
	m.Properties = map[string]string{"TAGS": "TagA"}
	return m
}

// fill puts n 1 KiB messages into s from one goroutine and requires PUT_OK for each.
func fill(b *testing.B, s *store.DefaultMessageStore, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		if r := s.PutMessage(benchMessage(int32(i % 4))); r.PutMessageStatus != store.PutOK {
			b.Fatalf("put %d: %s", i, r.PutMessageStatus)
		}
	}
}

// BenchmarkReplicationCatchUp measures what the slave receives: a master holding 40,000
// messages of 1 KiB (~46 MiB of CommitLog), a fresh slave started against it, timed from its
// start until its CommitLog reaches the master's end (its reput building ConsumeQueues behind
// it). MB/s is the slave's receive rate (b.SetBytes is the master's log size).
func BenchmarkReplicationCatchUp(b *testing.B) {
	dir := b.TempDir()
	master := startBenchNode(b, benchStoreConfig(filepath.Join(dir, "master"), store.AsyncMaster))
	defer master.stop()
	fill(b, master.store, benchChunk)
	end := master.store.GetMaxPhyOffset()
	b.SetBytes(int64(end))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		slave := startBenchSlave(b, dir, master)
		for slave.store.GetMaxPhyOffset() < end {
			time.Sleep(100 * time.Microsecond)
		}
		b.StopTimer()
		slave.stop()
		b.StartTimer()
	}
}

// BenchmarkPutMessageRole measures one put as the broker's put path sees it — append, then
// (SYNC_MASTER) the wait in GroupTransferService for the slave's acknowledgement — with a
// slave following the master: ns/op is the latency of one put with 1 sender (the added
// latency of SYNC_MASTER is the difference between the two roles), and the time per put with
// 8 senders, whose waits GroupTransferService serves together. p50 and p99 are per put.
func BenchmarkPutMessageRole(b *testing.B) {
	for _, role := range []string{store.AsyncMaster, store.SyncMaster} {
		for _, senders := range []int{1, 8} {
			b.Run(role+"/senders="+strconv.Itoa(senders), func(b *testing.B) { benchPuts(b, role, senders) })
		}
	}
}

// benchPuts runs b.N puts from senders goroutines on master/slave pairs of role, benchChunk
// puts a pair, and reports the latency percentiles of one put.
func benchPuts(b *testing.B, role string, senders int) {
	dir := b.TempDir()
	lat := make([]time.Duration, 0, b.N)
	var mu sync.Mutex
	b.SetBytes(benchBodySize)
	b.ResetTimer()
	b.StopTimer()
	for done := 0; done < b.N; {
		n := min(benchChunk, b.N-done)
		master := startBenchNode(b, benchStoreConfig(filepath.Join(dir, "master-"+strconv.Itoa(done)), role))
		slave := startBenchSlave(b, dir, master)
		for !master.ha.IsSlaveOK(master.store.GetMaxPhyOffset()) {
			time.Sleep(time.Millisecond)
		}
		fill(b, master.store, 100) // warm-up: the first puts touch fresh pages on both sides
		b.StartTimer()
		var wg sync.WaitGroup
		for g := 0; g < senders; g++ {
			share := n / senders
			if g < n%senders {
				share++
			}
			wg.Go(func() {
				mine := make([]time.Duration, 0, share)
				m := benchMessage(int32(g % 4))
				for i := 0; i < share; i++ {
					t0 := time.Now()
					r := master.store.PutMessage(m)
					mine = append(mine, time.Since(t0))
					if r.PutMessageStatus != store.PutOK {
						b.Errorf("%s put: %s", role, r.PutMessageStatus)
						return
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		b.StopTimer()
		slave.stop()
		master.stop()
		done += n
	}
	reportLatency(b, lat)
}

// BenchmarkSendRole measures what a producer sees: one synchronous send of a 1 KiB message by
// our producer over loopback to a master of each role whose slave follows (every service on,
// the wall clock), one send at a time; ns/op is the latency of one send, and SYNC_MASTER's
// minus ASYNC_MASTER's is what waiting for the slave adds. A pair serves at most benchChunk
// sends; then the timer stops and a fresh one (name server, master, slave) takes over.
func BenchmarkSendRole(b *testing.B) {
	for _, role := range []string{store.AsyncMaster, store.SyncMaster} {
		b.Run(role, func(b *testing.B) { benchSends(b, role) })
	}
}

func benchSends(b *testing.B, role string) {
	dir := b.TempDir()
	lat := make([]time.Duration, 0, b.N)
	b.SetBytes(benchBodySize)
	b.ResetTimer()
	b.StopTimer()
	for done := 0; done < b.N; {
		n := min(benchChunk, b.N-done)
		e := newEnv(io.Discard, nil, filepath.Join(dir, strconv.Itoa(done)))
		var err error
		e.Servers, err = mqtest.StartServers(e.dir)
		require.NoError(b, err)
		benchLive := func(sc storeSetup) {
			live(sc)
			sc.MappedFileSizeCommitLog = benchFileSize
			sc.WarmMappedFileEnable = true
		}
		require.NoError(b, e.startMaster(role, 4, benchLive))
		e.slave, err = e.startBroker(brokerName+"-slave", 1, store.Slave, benchLive)
		require.NoError(b, err)
		for !e.master.HAService().IsSlaveOK(e.masterStore().GetMaxPhyOffset()) {
			time.Sleep(time.Millisecond)
		}
		e.producer, err = e.startProducer("bench-" + role + "-" + strconv.Itoa(done))
		require.NoError(b, err)
		m := e.message("x", benchBodySize)
		for i := 0; i < 100; i++ { // warm-up: route, connection, fresh pages
			if _, err := e.producer.Send(context.Background(), m); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for i := 0; i < n; i++ {
			t0 := time.Now()
			r, err := e.producer.Send(context.Background(), m)
			lat = append(lat, time.Since(t0))
			if err != nil || r.SendStatus != producer.SendOK {
				b.Fatalf("%s send: %v %v", role, r, err)
			}
		}
		b.StopTimer()
		e.Shutdown()
		_ = os.RemoveAll(e.dir)
		done += n
	}
	reportLatency(b, lat)
}

// reportLatency reports the percentiles of lat (sorted here) in µs.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	b.ReportMetric(us(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(us(lat[len(lat)*99/100]), "p99-µs")
	b.ReportMetric(us(lat[len(lat)*999/1000]), "p99.9-µs")
	b.ReportMetric(us(lat[len(lat)-1]), "max-µs")
}
