package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// clientGoHeartbeat has the shape client-go's encoder produces (remoting-protocol.md §7.1):
// codeSet as JSON strings, subVersion in nanoseconds, expressionType sometimes "".
const clientGoHeartbeat = `{"clientID":"10.0.0.1@1234",
 "producerDataSet":[{"groupName":"pg"}],
 "consumerDataSet":[{"groupName":"g","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",
   "consumeFromWhere":"CONSUME_FROM_LAST_OFFSET",
   "subscriptionDataSet":[
     {"classFilterMode":false,"topic":"T","subString":"TagA || TagB","tagsSet":["TagA"],"codeSet":["2598919"],"subVersion":1,"expressionType":""},
     {"classFilterMode":false,"topic":"%RETRY%g","subString":"*","tagsSet":[],"codeSet":[],"subVersion":1700000000123456789,"expressionType":"TAG"}],
   "unitMode":false}]}`

// TestDecodeClientGoHeartbeat pins HeartbeatData decoding of client-go's JSON, codeSet strings
// included.
func TestDecodeClientGoHeartbeat(t *testing.T) {
	h, err := DecodeHeartbeatData([]byte(clientGoHeartbeat))
	require.NoError(t, err)
	require.Equal(t, &HeartbeatData{
		ClientID:        "10.0.0.1@1234",
		ProducerDataSet: []ProducerData{{GroupName: "pg"}},
		ConsumerDataSet: []ConsumerData{{
			GroupName:        "g",
			ConsumeType:      ConsumePassively,
			MessageModel:     Clustering,
			ConsumeFromWhere: ConsumeFromLastOffset,
			SubscriptionDataSet: []SubscriptionData{
				{Topic: "T", SubString: "TagA || TagB", TagsSet: []string{"TagA"}, CodeSet: []int32{2598919}, SubVersion: 1},
				{Topic: "%RETRY%g", SubString: "*", TagsSet: []string{}, SubVersion: 1700000000123456789, ExpressionType: "TAG"},
			},
		}},
	}, h)

	// fastjson leniency: numbers in codeSet, a string subVersion, null lists.
	h, err = DecodeHeartbeatData([]byte(`{"clientID":"c","producerDataSet":null,"consumerDataSet":[{"groupName":"g",
		"subscriptionDataSet":[{"topic":"T","subString":"a","tagsSet":["a"],"codeSet":[97,"-5"],"subVersion":"42"}]}]}`))
	require.NoError(t, err)
	require.Equal(t, []int32{97, -5}, h.ConsumerDataSet[0].SubscriptionDataSet[0].CodeSet)
	require.Equal(t, int64(42), h.ConsumerDataSet[0].SubscriptionDataSet[0].SubVersion)
	require.Nil(t, h.ProducerDataSet)

	for _, bad := range []string{`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":["x"]}]}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":[1.5]}]}]}`, `{"clientID":`, `[]`} {
		_, err := DecodeHeartbeatData([]byte(bad))
		require.ErrorIs(t, err, ErrBadBody, bad)
	}

	// Our encoder's output decodes back (the direction our own client will use).
	body, err := h.Encode()
	require.NoError(t, err)
	back, err := DecodeHeartbeatData(body)
	require.NoError(t, err)
	require.Equal(t, h.ConsumerDataSet, back.ConsumerDataSet)
}

// TestBuildSubscriptionData pins FilterAPI#buildSubscriptionData with Java's tag hash, so
// non-ASCII tags get Java's codes (pitfall 3).
func TestBuildSubscriptionData(t *testing.T) {
	tests := []struct {
		sub      string
		wantSub  string
		wantTags []string
		wantCode []int32
	}{
		{"", "*", nil, nil},
		{"*", "*", nil, nil},
		{"TagA", "TagA", []string{"TagA"}, []int32{2598919}},
		{"TagA || TagB", "TagA || TagB", []string{"TagA", "TagB"}, []int32{2598919, 2598920}},
		{" 中文 ||TagA||TagA|| ", " 中文 ||TagA||TagA|| ", []string{"中文", "TagA"}, []int32{646394, 2598919}},
	}
	for _, tt := range tests {
		t.Run(tt.sub, func(t *testing.T) {
			sd, err := BuildSubscriptionData("T", tt.sub)
			require.NoError(t, err)
			require.Equal(t, "T", sd.Topic)
			require.Equal(t, tt.wantSub, sd.SubString)
			require.Equal(t, tt.wantTags, sd.TagsSet)
			require.Equal(t, tt.wantCode, sd.CodeSet)
			require.Equal(t, TagType, sd.ExpressionType)
		})
	}
	_, err := BuildSubscriptionData("T", " || ")
	require.ErrorIs(t, err, ErrSubscriptionParse)
}

// TestRebuildCodeSetAndMatch pins the broker's repair of client-go's UTF-8 codes and
// ExpressionMessageFilter's TAG matching on the low 32 bits of tagsCode.
func TestRebuildCodeSetAndMatch(t *testing.T) {
	sd := SubscriptionData{SubString: "中文", TagsSet: []string{"中文"}, CodeSet: []int32{-1887180642}}
	require.False(t, sd.MatchesTagsCode(646394), "client-go's UTF-8 code misses Java's tagsCode")
	sd.RebuildCodeSet()
	require.Equal(t, []int32{646394}, sd.CodeSet)
	require.True(t, sd.MatchesTagsCode(646394))
	require.False(t, sd.MatchesTagsCode(2598919))

	all := SubscriptionData{SubString: "*"}
	require.True(t, all.MatchesTagsCode(12345))
	cf := SubscriptionData{SubString: "x", ClassFilterMode: true}
	require.True(t, cf.MatchesTagsCode(1))
	neg := SubscriptionData{SubString: "t", CodeSet: []int32{-878574680}}
	require.True(t, neg.MatchesTagsCode(-878574680), "sign-extended tagsCode matches its int code")
}
