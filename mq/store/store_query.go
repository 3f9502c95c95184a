package store

import (
	"sort"
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

// QueryMessage finds up to maxNum (at most maxMsgsNumBatch, 64) messages whose key — a word
// of KEYS or the UNIQ_KEY — is key in topic, stored within [begin, end] (ms), through the
// index. Records the index points at but the CommitLog no longer holds are skipped; a hash
// collision may return a message with another key (callers that care re-check the keys, as
// Java's clients do). When the first pass reads nothing, it retries up to twice with the end
// moved to the store time of the oldest hit. Java: DefaultMessageStore#queryMessage.
func (s *DefaultMessageStore) QueryMessage(topic, key string, maxNum int, begin, end int64) *QueryMessageResult {
	res := &QueryMessageResult{}
	lastQueryMsgTime := end
	for range 3 {
		q := s.indexService.queryOffset(topic, key, maxNum, begin, lastQueryMsgTime)
		if len(q.PhyOffsets) == 0 {
			break
		}
		sort.Slice(q.PhyOffsets, func(i, j int) bool { return q.PhyOffsets[i] < q.PhyOffsets[j] })
		res.IndexLastUpdateTimestamp, res.IndexLastUpdatePhyoffset = q.IndexLastUpdateTimestamp, q.IndexLastUpdatePhyoffset
		for m, offset := range q.PhyOffsets {
			if m > 0 && offset == q.PhyOffsets[m-1] {
				continue // indexed twice by a replay (see buildIndex); Java returns it twice
			}
			rec, ok := s.SelectOneMessageByOffset(offset)
			if !ok {
				continue
			}
			if m == 0 {
				lastQueryMsgTime = int64(be64(rec[storeTimestampPos(int32(be32(rec[posSysFlag:]))):]))
			}
			res.Messages = append(res.Messages, rec)
			res.BufferTotalSize += len(rec)
		}
		if res.BufferTotalSize > 0 || lastQueryMsgTime < begin {
			break
		}
	}
	return res
}
