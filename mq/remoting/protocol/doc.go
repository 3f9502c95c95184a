// Package protocol holds what the remoting frames carry, above the frame itself: request and
// response codes, the typed custom headers (a command's extFields) and the JSON bodies
// exchanged by clients, brokers and the name server, plus the names and rules those messages
// refer to (permissions, system topics, topic validation, pull sysFlag).
//
// Headers decode from and encode to the extFields map[string]string, bodies from and to
// []byte, so the frame codec and these types meet only in the processors; of mq/remoting this
// package uses only the JSON string escaper (fastjson.go). fastjson's unquoted numeric keys are
// read by mq/internal/fastjson, which the broker's config files and the schedule service's
// delayOffset.json share.
//
// Java: org.apache.rocketmq.common.protocol (RequestCode, ResponseCode, header.*,
// header.namesrv.*, body.*, route.*, heartbeat.*), org.apache.rocketmq.common.sysflag.PullSysFlag,
// org.apache.rocketmq.common.constant.PermName, org.apache.rocketmq.common.MixAll,
// org.apache.rocketmq.common.topic.TopicValidator, org.apache.rocketmq.common.filter.FilterAPI.
//
// # Files in reading order
//
//	request_code.go    RequestCode values (untyped constants: fit int16 or int32 code fields)
//	response_code.go   ResponseCode values, the generic 0–4 included
//	header.go          extReader: the shared decoding rules; ErrMissingField, ErrBadField
//	header_codec.go    DecodeHeader/EncodeHeader: the one codec of every header (hand-written or `ext` tags)
//	header_send.go     SEND_MESSAGE (V1 long keys and V2 keys a…n), send response,
//	                   CONSUMER_SEND_MSG_BACK, END_TRANSACTION, CHECK_TRANSACTION_STATE
//	header_pull.go     PullSysFlag bits, PULL_MESSAGE request/response
//	header_offset.go   consumer offsets, max/min offset, search by timestamp
//	header_client.go   GET_CONSUMER_LIST_BY_GROUP, NOTIFY_CONSUMER_IDS_CHANGED, UNREGISTER_CLIENT
//	header_reply.go    PUSH_REPLY_MESSAGE_TO_CLIENT (ReplyMessageRequestHeader)
//	header_namesrv.go  REGISTER_BROKER, UNREGISTER_BROKER, QUERY_DATA_VERSION, GET_ROUTEINFO_BY_TOPIC,
//	                   DELETE_TOPIC_IN_NAMESRV
//	header_kv.go       PUT/GET/DELETE_KV_CONFIG, GET_KVLIST_BY_NAMESPACE, GET_TOPICS_BY_CLUSTER, KVTable
//	header_admin.go    UPDATE_AND_CREATE_TOPIC, DELETE_TOPIC_IN_BROKER and the other admin headers
//	                   (topic stats, consume stats, connections, subscription groups, reset offset,
//	                   broker config)
//	admin_bodies.go    the admin bodies: TopicStatsTable, ConsumeStats, ResetOffsetBody (maps keyed
//	                   by MessageQueue objects, fastjson's dialect), Connection, ConsumerConnection,
//	                   ProducerConnection, GroupList
//	header_query.go    QUERY_MESSAGE, VIEW_MESSAGE_BY_ID
//	perm.go            PermName bits
//	mixall.go          well-known topic/group names, ValidateTopic, NotAllowedSendTopic, SplitNamesrvAddr
//	topic_config.go    TopicConfig, DataVersion, TopicConfigSerializeWrapper, RegisterBrokerBody
//	data_version.go    DataVersion's JSON body (QUERY_DATA_VERSION)
//	fastjson.go        the compact writer (reading goes through internal/fastjson, errors as ErrBadBody)
//	route.go           QueueData, BrokerData, TopicRouteData, ClusterInfo
//	heartbeat.go       HeartbeatData, SubscriptionData, BuildSubscriptionData
//	bodies.go          consumer list, topic list, lock/unlock bodies
//
// # Headers
//
// Every header is decoded with DecodeHeader(ext, &h) and encoded with EncodeHeader(&h), the
// two calls the broker, the name server and the client make. The send and pull headers are
// coded by hand (they run per message, and SEND_MESSAGE_V2 has its single-letter keys:
// DecodeSendMessageRequestHeaderV2, EncodeV2); every other header declares its keys in `ext`
// struct tags and is coded from that one description. The tag is the extFields key, then
// options:
//
//	ext:"topic"                      required: absent is ErrMissingField; always written
//	ext:"bodyCrc32,optional"         absent decodes as the zero value; always written
//	ext:"bname,omitempty"            optional, and left out when zero ("", 0, false)
//	ext:"maxReconsumeTimes,has=HasX" optional; the bool field HasX says whether it was
//	                                 present, and it is written only when HasX is true
//
// Tagged fields are string (and string types), int32, int64 or bool; untagged fields are left
// zero by decoding and not written. A rule the tags cannot say is the header's checkFields
// (CreateTopicRequestHeader's topicFilterType, EndTransactionRequestHeader's commitOrRollback),
// run after the tags decoded, as in Java.
//
// Decoding follows Java's RemotingCommand#decodeCommandCustomHeader: a missing @CFNotNull
// field is ErrMissingField, a number that Integer/Long.parseInt rejects is ErrBadField,
// booleans are "true" in any case or else false, unknown keys are ignored. Values are always
// strings; a broker that receives JSON numbers in extFields (other clients do that) must turn
// them into their text before decoding, which is the frame codec's job. Optional fields that
// are empty are not encoded (Java omits nulls). On success decoding allocates nothing.
//
// # JSON bodies and fastjson
//
// Bodies use RocketMQ's JSON field names. Java writes them with fastjson, which puts non-string
// map keys unquoted: {0:"10.0.0.1:10911"}. client-go cuts a route's brokerAddrs apart as raw
// text, so TopicRouteData.Encode writes compact JSON with brokerAddrs always present, in
// fastjson's alphabetical field order; EncodeStandard quotes the keys for 4.9.4+ requesters.
// The decoders accept both forms. Structs whose fields are declared in alphabetical JSON order
// (TopicConfig, DataVersion, RegisterBrokerBody) make encoding/json write fastjson's order too.
//
// Deviations: maps and sets are written in sorted order (Java: hash order) so bodies are
// deterministic; BuildSubscriptionData rejects an expression without any tag (Java builds an
// empty tag set for a blank-but-nonempty expression such as " ").
//
// No goroutines, no locks: values here are plain data, owned by whoever holds them.
package protocol
