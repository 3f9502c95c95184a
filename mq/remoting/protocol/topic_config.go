package protocol

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TopicFilterType is how a topic's tags are filtered. Mirrors
// org.apache.rocketmq.common.TopicFilterType; JSON is the enum name.
type TopicFilterType string

const (
	SingleTag TopicFilterType = "SINGLE_TAG"
	MultiTag  TopicFilterType = "MULTI_TAG"
)

// Java TopicConfig defaults (pinned by TestTopicConfigDefaults).
const (
	DefaultReadQueueNums  int32 = 16
	DefaultWriteQueueNums int32 = 16
)

// TopicConfig is one topic's configuration on a broker (topics.json, REGISTER_BROKER).
// Mirrors org.apache.rocketmq.common.TopicConfig. The fields are declared in alphabetical JSON
// order, so encoding/json writes them in the order fastjson does.
type TopicConfig struct {
	Order           bool            `json:"order"`
	Perm            int32           `json:"perm"`
	ReadQueueNums   int32           `json:"readQueueNums"`
	TopicFilterType TopicFilterType `json:"topicFilterType"`
	TopicName       string          `json:"topicName"`
	TopicSysFlag    int32           `json:"topicSysFlag"`
	WriteQueueNums  int32           `json:"writeQueueNums"`
}

// NewTopicConfig returns Java's defaults: 16 read and 16 write queues, perm RW (6), SINGLE_TAG.
func NewTopicConfig(name string) *TopicConfig {
	return &TopicConfig{
		TopicName:       name,
		ReadQueueNums:   DefaultReadQueueNums,
		WriteQueueNums:  DefaultWriteQueueNums,
		Perm:            PermRead | PermWrite,
		TopicFilterType: SingleTag,
	}
}

// EncodeCompact is the text form used by the compressed REGISTER_BROKER body:
// "name read write perm filterType" (topicSysFlag and order are not carried).
// Java: TopicConfig#encode.
func (c *TopicConfig) EncodeCompact() string {
	return c.TopicName + " " + itoa32(c.ReadQueueNums) + " " + itoa32(c.WriteQueueNums) + " " +
		itoa32(c.Perm) + " " + string(c.TopicFilterType)
}

// DecodeCompact parses EncodeCompact's form (exactly five space-separated parts).
// Java: TopicConfig#decode.
func (c *TopicConfig) DecodeCompact(s string) error {
	parts := strings.Split(s, " ")
	if len(parts) != 5 {
		return fmt.Errorf("%w: topic config %q: want 5 parts", ErrBadBody, s)
	}
	var nums [3]int32
	for i, p := range parts[1:4] {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil {
			return fmt.Errorf("%w: topic config %q: %v", ErrBadBody, s, err)
		}
		nums[i] = int32(n)
	}
	ft := TopicFilterType(parts[4])
	if ft != SingleTag && ft != MultiTag {
		return fmt.Errorf("%w: topic config %q: filter type", ErrBadBody, s)
	}
	*c = TopicConfig{TopicName: parts[0], ReadQueueNums: nums[0], WriteQueueNums: nums[1], Perm: nums[2], TopicFilterType: ft}
	return nil
}

// ErrBadBody: a request or response body that does not decode.
var ErrBadBody = errors.New("protocol: bad body")

// DataVersion versions a broker's topic configuration: the name server rebuilds queue data
// only when it changes. Timestamp is ms; Counter increments on each change.
// Mirrors org.apache.rocketmq.common.DataVersion (JSON {"counter":N,"timestamp":MS}).
type DataVersion struct {
	Counter   int64 `json:"counter"`
	Timestamp int64 `json:"timestamp"`
}

// NextVersion stamps a change: Timestamp = nowMillis, Counter + 1.
// Java: DataVersion#nextVersion.
func (v *DataVersion) NextVersion(nowMillis int64) {
	v.Timestamp = nowMillis
	v.Counter++
}

// TopicConfigSerializeWrapper is a broker's whole topic table with its version: the body of
// GET_ALL_TOPIC_CONFIG and part of REGISTER_BROKER.
// Mirrors org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper.
type TopicConfigSerializeWrapper struct {
	DataVersion      DataVersion             `json:"dataVersion"`
	TopicConfigTable map[string]*TopicConfig `json:"topicConfigTable"`
}

// Encode returns the JSON body (topics sorted by name; an empty table as {}).
func (w *TopicConfigSerializeWrapper) Encode() ([]byte, error) {
	c := *w
	if c.TopicConfigTable == nil {
		c.TopicConfigTable = map[string]*TopicConfig{}
	}
	return json.Marshal(&c)
}

// RegisterBrokerBody is the body of REGISTER_BROKER (103).
// Mirrors org.apache.rocketmq.common.protocol.body.RegisterBrokerBody (remoting-protocol.md §5.1).
type RegisterBrokerBody struct {
	FilterServerList            []string                    `json:"filterServerList"`
	TopicConfigSerializeWrapper TopicConfigSerializeWrapper `json:"topicConfigSerializeWrapper"`
}

// maxInflatedBody bounds the inflated size of a compressed body (16 MiB, the frame limit).
const maxInflatedBody = 16 << 20

// Encode returns the body: JSON, or with compressed the zlib stream
//
//	int32 len | DataVersion JSON | int32 topicCount | (int32 len | "name read write perm filter")* | int32 len | filterServerList JSON
//
// (topics in name order). Java: RegisterBrokerBody#encode.
func (b *RegisterBrokerBody) Encode(compressed bool) ([]byte, error) {
	c := *b
	if c.FilterServerList == nil {
		c.FilterServerList = []string{}
	}
	if c.TopicConfigSerializeWrapper.TopicConfigTable == nil {
		c.TopicConfigSerializeWrapper.TopicConfigTable = map[string]*TopicConfig{}
	}
	if !compressed {
		return json.Marshal(&c)
	}
	var raw bytes.Buffer
	putChunk := func(p []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(p)))
		raw.Write(n[:])
		raw.Write(p)
	}
	dv, err := json.Marshal(&c.TopicConfigSerializeWrapper.DataVersion)
	if err != nil {
		return nil, err
	}
	putChunk(dv)
	table := c.TopicConfigSerializeWrapper.TopicConfigTable
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(table)))
	raw.Write(n[:])
	for _, name := range sortedKeys(table) {
		putChunk([]byte(table[name].EncodeCompact()))
	}
	fs, err := json.Marshal(c.FilterServerList)
	if err != nil {
		return nil, err
	}
	putChunk(fs)
	var out bytes.Buffer
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DecodeRegisterBrokerBody decodes a REGISTER_BROKER body, JSON or (compressed, per the
// header's `compressed`) the zlib form of Encode. Topics of the compressed form have
// TopicSysFlag 0 and Order false, as in Java. Errors wrap ErrBadBody.
// Java: RegisterBrokerBody#decode.
func DecodeRegisterBrokerBody(body []byte, compressed bool) (*RegisterBrokerBody, error) {
	out := &RegisterBrokerBody{}
	if !compressed {
		if err := unmarshalBody(body, "register broker body", out); err != nil {
			return nil, err
		}
		return out, nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: register broker body: %v", ErrBadBody, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxInflatedBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: register broker body: %v", ErrBadBody, err)
	}
	if len(raw) > maxInflatedBody {
		return nil, fmt.Errorf("%w: register broker body inflates beyond %d bytes", ErrBadBody, maxInflatedBody)
	}
	next := func(what string) ([]byte, error) {
		if len(raw) < 4 {
			return nil, fmt.Errorf("%w: register broker body: truncated before %s", ErrBadBody, what)
		}
		n := binary.BigEndian.Uint32(raw)
		if uint64(n) > uint64(len(raw)-4) {
			return nil, fmt.Errorf("%w: register broker body: %s length %d beyond end", ErrBadBody, what, n)
		}
		p := raw[4 : 4+n]
		raw = raw[4+n:]
		return p, nil
	}
	dv, err := next("dataVersion")
	if err != nil {
		return nil, err
	}
	if err := unmarshalBody(dv, "register broker body dataVersion", &out.TopicConfigSerializeWrapper.DataVersion); err != nil {
		return nil, err
	}
	if len(raw) < 4 {
		return nil, fmt.Errorf("%w: register broker body: truncated before topic count", ErrBadBody)
	}
	count := binary.BigEndian.Uint32(raw)
	raw = raw[4:]
	table := make(map[string]*TopicConfig)
	for i := uint32(0); i < count; i++ {
		p, err := next("topic config")
		if err != nil {
			return nil, err
		}
		tc := &TopicConfig{}
		if err := tc.DecodeCompact(string(p)); err != nil {
			return nil, err
		}
		table[tc.TopicName] = tc
	}
	out.TopicConfigSerializeWrapper.TopicConfigTable = table
	fs, err := next("filterServerList")
	if err != nil {
		return nil, err
	}
	if err := unmarshalBody(fs, "register broker body filterServerList", &out.FilterServerList); err != nil {
		return nil, err
	}
	return out, nil
}
