package ha

import (
	"encoding/binary"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/stretchr/testify/require"
)

// fakeSlave is a raw TCP peer on a master's HA port that sends what a test tells it to.
type fakeSlave struct{ conn net.Conn }

func dialFakeSlave(t *testing.T, master *node) *fakeSlave {
	t.Helper()
	c, err := net.Dial("tcp", master.haAddr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &fakeSlave{conn: c}
}

func (f *fakeSlave) report(t *testing.T, off int64) {
	t.Helper()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(off))
	_, err := f.conn.Write(b[:])
	require.NoError(t, err)
}

// fakeMaster is a raw TCP listener a real slave follows; serve answers each connection.
type fakeMaster struct {
	ln    net.Listener
	conns chan net.Conn
}

func startFakeMaster(t *testing.T) *fakeMaster {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &fakeMaster{ln: ln, conns: make(chan net.Conn, 16)}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.conns <- c
		}
	}()
	return f
}

// next waits for the slave's next connection and reads its first report.
func (f *fakeMaster) next(t *testing.T) (net.Conn, int64) {
	t.Helper()
	select {
	case c := <-f.conns:
		t.Cleanup(func() { _ = c.Close() })
		var b [8]byte
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := readFull(c, b[:])
		require.NoError(t, err)
		return c, int64(binary.BigEndian.Uint64(b[:]))
	case <-time.After(10 * time.Second):
		t.Fatal("the slave did not connect")
		return nil, 0
	}
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func frame(off int64, body []byte) []byte {
	b := make([]byte, HeaderSize+len(body))
	putHeader(b, off, len(body))
	copy(b[HeaderSize:], body)
	return b
}

// TestGarbageFromSlaves: a slave sending 3 bytes and hanging up, one reporting a negative
// offset and one reporting an offset beyond the master's CommitLog end are each closed — no
// panic, push2SlaveMaxOffset untouched — while a real slave on the same master keeps
// replicating. Java: ReadSocketService#processReadEvent (a read of -1 closes the connection;
// "slave request offset greater than local commitLog offset").
func TestGarbageFromSlaves(t *testing.T) {
	master, slave := startPair(t, store.AsyncMaster)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond)

	ahead := dialFakeSlave(t, master)
	ahead.report(t, 1<<62)
	_ = ahead.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := ahead.conn.Read(make([]byte, 64))
	require.Error(t, err, "the master closes a slave claiming bytes it never had")
	require.Equal(t, store.CommitLogOffset(0), master.ha.Push2SlaveMaxOffset())
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond)
	r := master.store.PutMessage(msg(0, 0))
	require.Equal(t, store.PutOK, r.PutMessageStatus)

	short := dialFakeSlave(t, master)
	_, err = short.conn.Write([]byte{1, 2, 3})
	require.NoError(t, err)
	negative := dialFakeSlave(t, master)
	negative.report(t, -5)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() >= 2 }, 5*time.Second, 10*time.Millisecond)
	_ = short.conn.(*net.TCPConn).CloseWrite()
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond,
		"both garbage connections are closed, the real slave's stays")
	// the negative reporter's socket was closed by the master
	_ = negative.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = negative.conn.Read(make([]byte, 64))
	require.Error(t, err)

	putN(t, master.store, 1, 20, store.PutOK)
	end := master.store.GetMaxPhyOffset()
	require.Eventually(t, func() bool { return slave.store.GetMaxPhyOffset() == end }, 10*time.Second, 10*time.Millisecond)
}

// TestGarbageFromMaster: a slave closes a connection whose master pushes a frame for another
// offset than its max offset (logged with both), a truncated header, or a header announcing a
// body beyond 4 MiB; it appends nothing and reconnects, and a correct frame after reconnecting
// is appended. Java: HAClient#dispatchReadRequest ("master pushed offset not equal the max phy
// offset in slave"), HAClient#run (closeMaster, reconnect).
func TestGarbageFromMaster(t *testing.T) {
	fm := startFakeMaster(t)
	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = fm.ln.Addr().String()
	slave := startNode(t, sc, store.Options{}, nil)

	// A real record to start from, appended as the first frame.
	src := startNode(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil)
	putN(t, src.store, 0, 2, store.PutOK)
	data, ok := src.store.GetCommitLogData(0)
	require.True(t, ok)
	rec := append([]byte(nil), data.Data...)
	data.Release()

	c, first := fm.next(t)
	require.Equal(t, int64(0), first, "an empty slave reports 0")
	_, err := c.Write(frame(0, rec))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return slave.store.GetMaxPhyOffset() == store.CommitLogOffset(len(rec)) }, 5*time.Second, 10*time.Millisecond)

	cases := map[string][]byte{
		"wrong offset":    frame(int64(len(rec))+100, []byte("xxxx")),
		"truncated":       frame(int64(len(rec)), nil)[:5],
		"huge body":       frame(int64(len(rec)), nil),
		"negative offset": frame(-1, nil),
	}
	binary.BigEndian.PutUint32(cases["huge body"][8:], 5*1024*1024)
	for _, name := range []string{"wrong offset", "truncated", "huge body", "negative offset"} {
		c, reported := fm.next(t)
		require.Equal(t, int64(len(rec)), reported, "%s: the slave reconnected from its own max offset", name)
		_, err := c.Write(cases[name])
		require.NoError(t, err)
		if name == "truncated" {
			_ = c.(*net.TCPConn).CloseWrite()
		}
		// the slave closes this connection
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			if _, err := c.Read(make([]byte, 64)); err != nil {
				break
			}
		}
		require.Equal(t, store.CommitLogOffset(len(rec)), slave.store.GetMaxPhyOffset(), "%s: nothing appended", name)
	}
	c, _ = fm.next(t)
	_, err = c.Write(frame(int64(len(rec)), []byte{}))
	require.NoError(t, err, "a heartbeat at the right offset is accepted")
}

// TestIdleConnectionsAreCheap: the HA port is open to anyone; each connection, reporting or
// not, costs its two loops and a small read buffer — not Java's 1 MiB ByteBuffer — so a peer
// opening many connections cannot make the master allocate a mebibyte apiece. 64 connections
// here must allocate less than 16 MiB in all (1 MiB each would be 64 MiB).
func TestIdleConnectionsAreCheap(t *testing.T) {
	master := startNode(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil)
	const n = 64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		dialFakeSlave(t, master)
	}
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == n }, 10*time.Second, 10*time.Millisecond)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	require.Less(t, allocated, uint64(16<<20), "%d connections allocated %d bytes", n, allocated)
}

// TestReportBurstLargerThanReadBuffer: 1000 reports written at once (8000 bytes, several
// times the master's 1 KiB read buffer, split at arbitrary bytes by TCP) are all read; the
// last one counts (of the reports read together only the last is taken, so where transfer
// starts is the last whole report of the first read).
func TestReportBurstLargerThanReadBuffer(t *testing.T) {
	master := startNode(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil)
	putN(t, master.store, 0, 10, store.PutOK)
	end := int64(master.store.GetMaxPhyOffset())
	fake := dialFakeSlave(t, master)
	burst := make([]byte, 0, 8000)
	for i := range int64(1000) {
		burst = binary.BigEndian.AppendUint64(burst, uint64(end*i/999))
	}
	_, err := fake.conn.Write(burst)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		conns := master.ha.Connections()
		return len(conns) == 1 && int64(conns[0].SlaveAckOffset()) == end
	}, 5*time.Second, 10*time.Millisecond)
	req := int64(master.ha.Connections()[0].SlaveRequestOffset())
	require.True(t, req >= 0 && req <= end, "transfer starts at a report read in the first read: %d", req)
}
