package ha

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/stretchr/testify/require"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(t, err)
	return b
}

// TestFrameBytes pins the HA frames against hand-written bytes (not against each other): the
// report is the slave's max offset as 8 big-endian bytes; the transfer header is the 8-byte
// big-endian physical offset then the 4-byte big-endian body size. Java: HAClient#reportSlaveMaxOffset,
// WriteSocketService#run (byteBufferHeader.putLong(thisOffset).putInt(size)).
func TestFrameBytes(t *testing.T) {
	require.Equal(t, 8, ReportSize)
	require.Equal(t, 12, HeaderSize)

	var r [8]byte
	putReport(r[:], 1073741824+4096)
	require.Equal(t, unhex(t, "00000000 40001000"), r[:])
	off, err := parseReport(unhex(t, "00000000 000000d2"))
	require.NoError(t, err)
	require.Equal(t, int64(210), off)
	_, err = parseReport(unhex(t, "ffffffff fffffffb"))
	require.True(t, errors.Is(err, ErrProtocol), "a negative report is refused")

	var h [12]byte
	putHeader(h[:], 0x12345678, 32768)
	require.Equal(t, unhex(t, "00000000 12345678 00008000"), h[:])
	phy, size, err := parseHeader(unhex(t, "00000000 00003000 000000d2"))
	require.NoError(t, err)
	require.Equal(t, int64(12288), phy)
	require.Equal(t, 210, size)
	phy, size, err = parseHeader(unhex(t, "00000000 00003000 00000000"))
	require.NoError(t, err, "a heartbeat")
	require.Equal(t, int64(12288), phy)
	require.Zero(t, size)
	for _, bad := range []string{"80000000 00000000 00000000", "00000000 00000000 ffffffff", "00000000 00000000 00400000"} {
		_, _, err := parseHeader(unhex(t, bad))
		require.True(t, errors.Is(err, ErrProtocol), bad)
	}
}

// TestBatchSizeLimitMatchesSlave: the store refuses an haTransferBatchSize above what a slave
// accepts in one frame (maxBodySize) and takes that size itself.
func TestBatchSizeLimitMatchesSlave(t *testing.T) {
	cfg := store.DefaultMessageStoreConfig()
	cfg.HaTransferBatchSize = maxBodySize
	require.NoError(t, cfg.Validate())
	cfg.HaTransferBatchSize = maxBodySize + 1
	require.ErrorIs(t, cfg.Validate(), store.ErrInvalidConfig)
}
