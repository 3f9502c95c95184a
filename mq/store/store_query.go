package store

import (
	"slices"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// QueryMessageResult is what QueryMessage finds: whole records (copies, in CommitLog order)
// and the newest index file's end time (ms) and end offset (bytes), which the broker returns
// in the response header. Mirrors org.apache.rocketmq.store.QueryMessageResult.
type QueryMessageResult struct {
	Messages                 [][]byte
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset CommitLogOffset
	BufferTotalSize          int
}

// Body is the records back to back: the body of a QUERY_MESSAGE response.
func (r *QueryMessageResult) Body() []byte {
	out := make([]byte, 0, r.BufferTotalSize)
	for _, m := range r.Messages {
		out = append(out, m...)
	}
	return out
}

// QueryMessage finds up to maxNum (at most maxMsgsNumBatch, 64) messages of topic stored
// within [begin, end] (ms) whose KEYS hold key as one of its space-separated words, or whose
// UNIQ_KEY is key, newest first through the index, returned in CommitLog order. The index
// stores only a hash of topic#key, so each entry with the hash is checked against its record
// while the index is walked: a record of another topic or key (a hash collision), or one the
// CommitLog no longer holds, is skipped and does not count toward maxNum, so no matching
// message within the limit is missed. Java: DefaultMessageStore#queryMessage.
//
// Deviation: Java returns the hash matches unchecked (its clients re-check the keys and stop
// short of maxNum when collisions took places), and retries with an earlier end when the
// first pass read nothing; the check here makes the retry unnecessary.
func (s *DefaultMessageStore) QueryMessage(topic, key string, maxNum int, begin, end int64) *QueryMessageResult {
	records := map[CommitLogOffset][]byte{}
	keep := func(offset CommitLogOffset) bool {
		if _, dup := records[offset]; dup {
			return false // indexed twice by a replay (see buildIndex)
		}
		rec, ok := s.SelectOneMessageByOffset(offset)
		if !ok || !recordMatches(rec, topic, key) {
			return false
		}
		records[offset] = rec
		return true
	}
	q := s.indexService.queryOffset(topic, key, maxNum, begin, end, keep)
	res := &QueryMessageResult{IndexLastUpdateTimestamp: q.IndexLastUpdateTimestamp, IndexLastUpdatePhyoffset: q.IndexLastUpdatePhyoffset}
	slices.Sort(q.PhyOffsets)
	for _, offset := range q.PhyOffsets {
		rec := records[offset]
		res.Messages = append(res.Messages, rec)
		res.BufferTotalSize += len(rec)
	}
	return res
}

// recordMatches reports whether the stored record rec is of topic and has key among its KEYS
// words or as its UNIQ_KEY (the keys buildIndex indexed it under). A record that does not
// decode does not match.
func recordMatches(rec []byte, topic, key string) bool {
	m, _, err := primitive.DecodeMessage(rec)
	if err != nil || m.Topic != topic || key == "" { // the index holds no empty key
		return false
	}
	if m.Properties[primitive.PropertyUniqClientMessageIDKeyIdx] == key {
		return true
	}
	for _, k := range strings.Split(m.Properties[primitive.PropertyKeys], primitive.KeySeparator) {
		if k == key {
			return true
		}
	}
	return false
}
