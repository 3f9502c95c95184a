package primitive

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
)

const hexUpper = "0123456789ABCDEF"

// CreateOffsetMsgID returns the offsetMsgId of a stored message: upper-case hex of the store
// host field (4-byte IPv4 or 16-byte IPv6, then the port as 4 bytes big-endian) followed by the
// 8-byte big-endian commitLogOffset (bytes). 32 characters for IPv4, 56 for IPv6. It is the
// `msgId` of a send response and the MsgID of messages without UNIQ_KEY.
// Store host 10.0.0.9:10911, offset 4096 → "0A00000900002A9F0000000000001000".
//
// One allocation (the string): it runs once per stored message.
//
// Java: MessageDecoder#createMessageId; UtilAll#bytes2string (upper case).
func CreateOffsetMsgID(storeHost []byte, commitLogOffset int64) string {
	var buf [56]byte
	dst := buf[:0]
	if n := 2 * (len(storeHost) + 8); n > len(buf) {
		dst = make([]byte, 0, n)
	}
	for _, c := range storeHost {
		dst = append(dst, hexUpper[c>>4], hexUpper[c&0xF])
	}
	for shift := 56; shift >= 0; shift -= 8 {
		c := byte(uint64(commitLogOffset) >> shift)
		dst = append(dst, hexUpper[c>>4], hexUpper[c&0xF])
	}
	return string(dst)
}

// DecodeOffsetMsgID splits an offsetMsgId into the store host ("ip:port", IPv6 as
// "[ip]:port") and the commitLogOffset (bytes). Both hex cases are accepted. A 32-character id
// is IPv4, a 56-character id IPv6; any other length, or a non-hex character, is ErrBadMsgID.
//
// Java: MessageDecoder#decodeMessageId.
func DecodeOffsetMsgID(id string) (host string, commitLogOffset int64, err error) {
	var hostLen int
	switch len(id) {
	case 32:
		hostLen = 8
	case 56:
		hostLen = 20
	default:
		return "", 0, fmt.Errorf("%w: length %d, want 32 or 56", ErrBadMsgID, len(id))
	}
	var raw [28]byte
	b := raw[:hostLen+8]
	for i := range b {
		hi, ok1 := unhex(id[2*i])
		lo, ok2 := unhex(id[2*i+1])
		if !ok1 || !ok2 {
			return "", 0, fmt.Errorf("%w: non-hex character in %q", ErrBadMsgID, id)
		}
		b[i] = hi<<4 | lo
	}
	host, err = hostString(b[:hostLen])
	if err != nil {
		return "", 0, fmt.Errorf("%w: %w", ErrBadMsgID, err)
	}
	return host, int64(binary.BigEndian.Uint64(b[hostLen:])), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// HostBytes encodes "ip:port" (IPv6 as "[ip]:port") as a record host field: 4 bytes IPv4
// (IPv4-mapped IPv6 counts as IPv4, as Java's Inet4Address) or 16 bytes IPv6, then the port as
// a 4-byte big-endian int. The IP must be a literal; a hostname is ErrBadHost.
//
// Java: MessageExt#socketAddress2ByteBuffer.
func HostBytes(addr string) ([]byte, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadHost, addr, err)
	}
	ip := ap.Addr().Unmap()
	var b []byte
	if ip.Is4() {
		a := ip.As4()
		b = make([]byte, 8)
		copy(b, a[:])
	} else {
		a := ip.As16()
		b = make([]byte, 20)
		copy(b, a[:])
	}
	binary.BigEndian.PutUint32(b[len(b)-4:], uint32(ap.Port()))
	return b, nil
}

// HostString formats a record host field (8 or 20 bytes) as "ip:port" ("[ip]:port" for IPv6).
// Invalid input (another length, a port outside 0–65535) gives "".
//
// Deviation: Java and client-go print IPv6 without brackets; we bracket it so the result parses
// back with HostBytes and net.Dial.
func HostString(b []byte) string {
	s, err := hostString(b)
	if err != nil {
		return ""
	}
	return s
}

func hostString(b []byte) (string, error) {
	var ip netip.Addr
	switch len(b) {
	case 8:
		ip = netip.AddrFrom4([4]byte(b[:4]))
	case 20:
		ip = netip.AddrFrom16([16]byte(b[:16]))
	default:
		return "", fmt.Errorf("%w: host field of %d bytes, want 8 or 20", ErrBadHost, len(b))
	}
	port := int32(binary.BigEndian.Uint32(b[len(b)-4:]))
	if port < 0 || port > 65535 {
		return "", fmt.Errorf("%w: port %d out of range", ErrBadHost, port)
	}
	if ip.Is4() {
		return ip.String() + ":" + strconv.Itoa(int(port)), nil
	}
	return netip.AddrPortFrom(ip, uint16(port)).String(), nil
}
