package store

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConfigDefaults pins the flush settings of MessageStoreConfig (4.9.x): flushDiskType
// ASYNC_FLUSH, syncFlushTimeout 5 s, flushIntervalCommitLog 500 ms, flushCommitLogLeastPages 4,
// flushCommitLogThoroughInterval 10 s, transientStorePoolEnable false, transientStorePoolSize 5,
// commitIntervalCommitLog 200 ms, commitCommitLogLeastPages 4, commitCommitLogThoroughInterval
// 200 ms, flushDelayOffsetInterval 10 s — and their keys in properties syntax.
func TestConfigDefaults(t *testing.T) {
	c := DefaultMessageStoreConfig()
	require.Equal(t, AsyncFlush, c.FlushDiskType)
	require.Equal(t, 5*time.Second, c.SyncFlushTimeout)
	require.Equal(t, 500*time.Millisecond, c.FlushIntervalCommitLog)
	require.Equal(t, 4, c.FlushCommitLogLeastPages)
	require.Equal(t, 10*time.Second, c.FlushCommitLogThoroughInterval)
	require.False(t, c.TransientStorePoolEnable)
	require.Equal(t, 5, c.TransientStorePoolSize)
	require.Equal(t, 200*time.Millisecond, c.CommitIntervalCommitLog)
	require.Equal(t, 4, c.CommitCommitLogLeastPages)
	require.Equal(t, 200*time.Millisecond, c.CommitCommitLogThoroughInterval)
	require.Equal(t, 10*time.Second, c.FlushDelayOffsetInterval)
	out := c.String()
	for _, line := range []string{"flushDiskType=ASYNC_FLUSH\n", "syncFlushTimeout=5000\n", "transientStorePoolEnable=false\n",
		"transientStorePoolSize=5\n", "commitIntervalCommitLog=200\n", "commitCommitLogLeastPages=4\n",
		"commitCommitLogThoroughInterval=200\n", "flushDelayOffsetInterval=10000\n", "flushIntervalCommitLog=500\n",
		"mappedFileSizeCommitLog=1073741824\n"} {
		require.Contains(t, out, line)
	}
	require.NotContains(t, out, "Clock")
	require.NotContains(t, out, "Hook")
}

// TestConfigValidate: both flush types are accepted, anything else is refused; the pool is
// used only with ASYNC_FLUSH on a master (Java: MessageStoreConfig#isTransientStorePoolEnable).
func TestConfigValidate(t *testing.T) {
	cfg := DefaultMessageStoreConfig()
	require.NoError(t, cfg.Validate())
	cfg.FlushDiskType = SyncFlush
	require.NoError(t, cfg.Validate())
	cfg.FlushDiskType = "SOMETIMES"
	require.ErrorIs(t, cfg.Validate(), ErrInvalidConfig)
	cfg = DefaultMessageStoreConfig()
	cfg.BrokerRole = "BOSS"
	require.True(t, errors.Is(cfg.Validate(), ErrInvalidConfig))
	cfg = DefaultMessageStoreConfig()
	cfg.SyncFlushTimeout = 0
	require.ErrorIs(t, cfg.Validate(), ErrInvalidConfig)
	cfg = DefaultMessageStoreConfig()
	cfg.TransientStorePoolEnable = true
	cfg.TransientStorePoolSize = 0
	require.ErrorIs(t, cfg.Validate(), ErrInvalidConfig)
	cfg = DefaultMessageStoreConfig()
	cfg.FileReservedTime = 0 // Java's meaning: every file but the newest expires
	require.NoError(t, cfg.Validate())
	cfg.FileReservedTime = -5
	require.ErrorIs(t, cfg.Validate(), ErrInvalidConfig)

	for _, tc := range []struct {
		flush, role string
		want        bool
	}{
		{AsyncFlush, AsyncMaster, true},
		{AsyncFlush, SyncMaster, true},
		{SyncFlush, AsyncMaster, false},
		{AsyncFlush, Slave, false},
	} {
		c := DefaultMessageStoreConfig()
		c.TransientStorePoolEnable = true
		c.FlushDiskType, c.BrokerRole = tc.flush, tc.role
		require.Equal(t, tc.want, c.IsTransientStorePoolEnable(), "%s %s", tc.flush, tc.role)
	}
}

// TestConfigValidateHA: HA settings that cannot work are refused at start. A transfer batch of
// 0 bytes made the master's write loop spin on empty frames; one above 4 MiB - 12 bytes (a
// slave's read buffer less the header) is refused by every slave, so replication never moves;
// a heartbeat interval of 0 spins too, and one not below haHousekeepingInterval lets an idle
// connection be dropped before its heartbeat comes.
func TestConfigValidateHA(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*MessageStoreConfig)
		ok   bool
	}{
		{"batch 1 byte", func(c *MessageStoreConfig) { c.HaTransferBatchSize = 1 }, true},
		{"batch 4 MiB - 12", func(c *MessageStoreConfig) { c.HaTransferBatchSize = 4<<20 - 12 }, true},
		{"batch 0", func(c *MessageStoreConfig) { c.HaTransferBatchSize = 0 }, false},
		{"batch 4 MiB", func(c *MessageStoreConfig) { c.HaTransferBatchSize = 4 << 20 }, false},
		{"heartbeat 0", func(c *MessageStoreConfig) { c.HaSendHeartbeatInterval = 0 }, false},
		{"housekeeping 0", func(c *MessageStoreConfig) { c.HaHousekeepingInterval = 0 }, false},
		{"heartbeat = housekeeping", func(c *MessageStoreConfig) { c.HaSendHeartbeatInterval = c.HaHousekeepingInterval }, false},
		{"haListenPort 65536", func(c *MessageStoreConfig) { c.HaListenPort = 65536 }, false},
		{"haListenPort -1", func(c *MessageStoreConfig) { c.HaListenPort = -1 }, false},
	} {
		c := DefaultMessageStoreConfig()
		tc.set(&c)
		if tc.ok {
			require.NoError(t, c.Validate(), tc.name)
		} else {
			require.ErrorIs(t, c.Validate(), ErrInvalidConfig, tc.name)
		}
	}
}

// TestParseDelayLevel pins ScheduleMessageService#parseDelayLevel: units s, m, h, d, level n
// at index n-1; the 4.9 default gives 18 levels from 1 s to 2 h.
func TestParseDelayLevel(t *testing.T) {
	def, err := ParseDelayLevel(DefaultMessageStoreConfig().MessageDelayLevel)
	require.NoError(t, err)
	s, m, h := int64(1000), int64(60000), int64(3600000)
	require.Equal(t, []int64{1 * s, 5 * s, 10 * s, 30 * s, 1 * m, 2 * m, 3 * m, 4 * m, 5 * m, 6 * m, 7 * m, 8 * m,
		9 * m, 10 * m, 20 * m, 30 * m, 1 * h, 2 * h}, def)
	for _, tc := range []struct {
		in   string
		want []int64
		bad  bool
	}{
		{in: "1d 2h", want: []int64{86400000, 7200000}},
		{in: "0s", want: []int64{0}},
		{in: "5x", bad: true},
		{in: "s", bad: true},
		{in: "-1s", bad: true},
		{in: "1.5s", bad: true},
	} {
		got, err := ParseDelayLevel(tc.in)
		if tc.bad {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	cfg := DefaultMessageStoreConfig()
	cfg.MessageDelayLevel = "1q"
	require.ErrorIs(t, cfg.Validate(), ErrInvalidConfig)
}
