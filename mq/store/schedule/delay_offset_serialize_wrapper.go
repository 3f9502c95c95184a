package schedule

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// encodeOffsetTable writes DelayOffsetSerializeWrapper the way fastjson does: delay levels are
// Integer keys, so they are written UNQUOTED (not standard JSON), levels in ascending order.
// Compact (GET_ALL_DELAY_OFFSET's body):
//
//	{"offsetTable":{1:0,2:5}}
//
// Pretty (the file; fastjson puts a map with non-string keys on one line and its closing
// brace on the next):
//
//	{
//		"offsetTable":{1:0,2:5
//		}
//	}
//
// Java: DelayOffsetSerializeWrapper#toJson(prettyFormat).
func encodeOffsetTable(t map[int32]store.QueueOffset, pretty bool) []byte {
	var b bytes.Buffer
	if pretty {
		b.WriteString("{\n\t\"offsetTable\":{")
	} else {
		b.WriteString("{\"offsetTable\":{")
	}
	for i, level := range slices.Sorted(maps.Keys(t)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(level), 10))
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(int64(t[level]), 10))
	}
	if pretty {
		if len(t) > 0 {
			b.WriteString("\n\t")
		}
		b.WriteString("}\n}")
	} else {
		b.WriteString("}}")
	}
	return b.Bytes()
}

// decodeOffsetTable reads delayOffset.json: levels quoted or not (fastjson writes them bare,
// standard JSON quotes them), unknown fields ignored. A level that is not a 32-bit integer is
// an error. Java: DelayOffsetSerializeWrapper#fromJson.
func decodeOffsetTable(data []byte) (map[int32]store.QueueOffset, error) {
	var f struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := fastjson.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("schedule: decode delay offsets: %w", err)
	}
	t := make(map[int32]store.QueueOffset, len(f.OffsetTable))
	for k, off := range f.OffsetTable {
		level, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("schedule: decode delay offsets: level %q: %w", k, err)
		}
		t[int32(level)] = store.QueueOffset(off)
	}
	return t, nil
}
