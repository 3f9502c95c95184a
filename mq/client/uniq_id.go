package client

import (
	"encoding/binary"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

const hexDigits = "0123456789ABCDEF"

// MessageClientIDSetter makes UNIQ_KEY values, the message ids a producer gives its messages
// (SendResult.MsgID). Java's layout (remoting-protocol.md §6.4), 32 upper-case hex characters
// for an IPv4 host:
//
//	+----------+---------+------------------+----------------------+-----------+
//	| IP (4 B) | pid (2) | class-loader (4) | ms since month start | counter   |
//	|          |         | hash             | (4, local time zone) | (2)       |
//	+----------+---------+------------------+----------------------+-----------+
//	  8 hex      4 hex     8 hex              8 hex                  4 hex
//
// The first 10 bytes are fixed per process; the time and the counter change per id.
// Mirrors org.apache.rocketmq.common.message.MessageClientIDSetter.
//
// Deviation: Java puts its class loader's identity hash in bytes 6–9; a Go process has none,
// so it is a random int32 fixed at creation.
type MessageClientIDSetter struct {
	fix     []byte // hex of IP ‖ pid ‖ hash
	counter atomic.Int32
	clock   clock.Clock
	loc     *time.Location

	mu            sync.Mutex
	startTime     int64 // ms: the start of the current month
	nextStartTime int64 // ms: the start of the next month
}

// NewMessageClientIDSetter returns a setter for a host ip (4 or 16 bytes; anything else is
// replaced by 4 bytes of the clock, as Java's createFakeIP), a pid (low 16 bits used) and a
// 4-byte hash, reading time from clk (nil: the wall clock) in loc (nil: time.Local).
func NewMessageClientIDSetter(ip []byte, pid int, hash int32, clk clock.Clock, loc *time.Location) *MessageClientIDSetter {
	clk = clock.Or(clk)
	if loc == nil {
		loc = time.Local
	}
	if len(ip) != 4 && len(ip) != 16 {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(clock.Millis(clk)))
		ip = b[4:8]
	}
	raw := make([]byte, 0, len(ip)+6)
	raw = append(raw, ip...)
	raw = binary.BigEndian.AppendUint16(raw, uint16(pid))
	raw = binary.BigEndian.AppendUint32(raw, uint32(hash))
	fix := make([]byte, 0, 2*len(raw))
	for _, c := range raw {
		fix = append(fix, hexDigits[c>>4], hexDigits[c&0xF])
	}
	s := &MessageClientIDSetter{fix: fix, clock: clk, loc: loc}
	s.setStartTime(clk.Now())
	return s
}

// setStartTime sets the month window containing t. Java: MessageClientIDSetter#setStartTime.
func (s *MessageClientIDSetter) setStartTime(t time.Time) {
	t = t.In(s.loc)
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, s.loc)
	s.startTime = start.UnixMilli()
	s.nextStartTime = start.AddDate(0, 1, 0).UnixMilli()
}

// CreateUniqID returns a new id: the fixed part, then the milliseconds since the start of the
// current month (4 bytes) and the counter's low 16 bits, all upper-case hex.
// Java: MessageClientIDSetter#createUniqID.
func (s *MessageClientIDSetter) CreateUniqID() string {
	now := s.clock.Now()
	s.mu.Lock()
	if now.UnixMilli() >= s.nextStartTime {
		s.setStartTime(now)
	}
	diff := int32(now.UnixMilli() - s.startTime)
	s.mu.Unlock()
	if diff < 0 && diff > -1_000_000 { // a clock step back (NTP): Java writes 0
		diff = 0
	}
	count := s.counter.Add(1) - 1
	var buf [56]byte
	b := append(buf[:0], s.fix...)
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(uint32(diff)>>shift)&0xF])
	}
	for shift := 12; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(uint32(count)>>shift)&0xF])
	}
	return string(b)
}

// SetUniqID gives msg a UNIQ_KEY unless it has one. Java: MessageClientIDSetter#setUniqID.
func (s *MessageClientIDSetter) SetUniqID(msg *primitive.Message) {
	if _, ok := msg.Properties[primitive.PropertyUniqClientMessageIDKeyIdx]; !ok {
		msg.PutProperty(primitive.PropertyUniqClientMessageIDKeyIdx, s.CreateUniqID())
	}
}

// GetUniqID returns msg's UNIQ_KEY ("" when absent). Java: MessageClientIDSetter#getUniqID.
func GetUniqID(msg *primitive.Message) string {
	return msg.Properties[primitive.PropertyUniqClientMessageIDKeyIdx]
}

var (
	defaultIDSetterOnce sync.Once
	defaultIDSetter     *MessageClientIDSetter
)

// DefaultMessageClientIDSetter is the process's setter (Java's is static): the host's IPv4
// address (LocalAddress), the pid, a random hash, wall-clock time in the local zone.
func DefaultMessageClientIDSetter() *MessageClientIDSetter {
	defaultIDSetterOnce.Do(func() {
		ip := net.ParseIP(LocalAddress()).To4()
		defaultIDSetter = NewMessageClientIDSetter(ip, os.Getpid(), rand.Int32(), nil, nil)
	})
	return defaultIDSetter
}

// CreateUniqID returns a new UNIQ_KEY from the process's setter.
func CreateUniqID() string { return DefaultMessageClientIDSetter().CreateUniqID() }

// SetUniqID gives msg a UNIQ_KEY from the process's setter unless it has one.
func SetUniqID(msg *primitive.Message) { DefaultMessageClientIDSetter().SetUniqID(msg) }
