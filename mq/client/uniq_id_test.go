package client

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Java's MessageClientIDSetter#createUniqID layout, checked against hand-computed hex: IP
// 10.0.0.9 (0A000009), pid 0x1234, hash 0x01020304, then the ms since the start of the month
// (4 days + 1.5 s = 345601500 = 0x149975DC) and the counter (0000, then 0001).
func TestCreateUniqIDLayout(t *testing.T) {
	clk := clock.NewManual(time.Date(2024, 3, 5, 0, 0, 1, 500_000_000, time.UTC))
	s := NewMessageClientIDSetter([]byte{10, 0, 0, 9}, 0x1234, 0x01020304, clk, time.UTC)
	require.Equal(t, "0A0000091234"+"01020304"+"149975DC"+"0000", s.CreateUniqID())
	require.Equal(t, "0A0000091234"+"01020304"+"149975DC"+"0001", s.CreateUniqID())
}

// The month window moves when the clock passes the next month's start (Java setStartTime), and
// a small step back of the clock (NTP) writes 0 rather than a negative span.
func TestCreateUniqIDMonthRollAndClockStepBack(t *testing.T) {
	clk := clock.NewManual(time.Date(2024, 2, 29, 23, 59, 59, 999_000_000, time.UTC))
	s := NewMessageClientIDSetter([]byte{10, 0, 0, 9}, 1, 2, clk, time.UTC)
	clk.Set(time.Date(2024, 3, 1, 0, 0, 0, 250_000_000, time.UTC))
	require.Equal(t, "000000FA", s.CreateUniqID()[20:28], "250 ms into March")
	clk.Set(time.Date(2024, 3, 1, 0, 0, 0, 100_000_000, time.UTC).Add(-time.Second)) // back into February
	require.Equal(t, "00000000", s.CreateUniqID()[20:28], "a clock step back of < 1000 s writes 0")
}

// The process's ids are 32 upper-case hex characters (IPv4 host), unique, and SetUniqID keeps
// an existing UNIQ_KEY. Java: MessageClientIDSetter#setUniqID.
func TestDefaultUniqIDs(t *testing.T) {
	hex32 := regexp.MustCompile(`^[0-9A-F]{32}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := CreateUniqID()
		require.Regexp(t, hex32, id)
		require.False(t, seen[id], "duplicate id %s", id)
		seen[id] = true
	}
	m := &primitive.Message{}
	SetUniqID(m)
	id := GetUniqID(m)
	require.Regexp(t, hex32, id)
	SetUniqID(m)
	require.Equal(t, id, GetUniqID(m))
}

// A host address of another length is replaced by 4 bytes of the clock (Java createFakeIP).
func TestUniqIDFakeIP(t *testing.T) {
	clk := clock.NewManualMillis(0x0000018D_AABBCCDD)
	s := NewMessageClientIDSetter(nil, 0, 0, clk, time.UTC)
	require.Equal(t, "AABBCCDD", s.CreateUniqID()[:8])
}
