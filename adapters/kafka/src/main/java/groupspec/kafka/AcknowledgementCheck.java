package groupspec.kafka;

import kafka.server.KafkaApis;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch;

import org.mockito.Mockito;

import java.util.List;

/**
 * The check a broker makes of acknowledgement batches before any reaches a share partition:
 * Kafka's own {@code KafkaApis#validateAcknowledgementBatches} (a batch whose first offset is past
 * its last, one starting before the previous one's last offset, no types, a per-offset type list
 * of the wrong length, a type outside 0..4, RENEW outside a renew acknowledgement: INVALID_REQUEST
 * for the partition). The method reads none of KafkaApis's state, so it is called on an instance
 * Mockito makes without running the constructor, its real methods kept.
 *
 * <p>A vector's Acknowledge has no isRenewAck flag: one holding a RENEW type is sent as a renew
 * acknowledgement (ShareAcknowledge v2), any other as a plain one; renewing is supported.
 */
final class AcknowledgementCheck {
    private static KafkaApis apis;

    private AcknowledgementCheck() {
    }

    static boolean valid(TopicIdPartition tip, List<ShareAcknowledgementBatch> batches, boolean renew) {
        if (apis == null) {
            apis = Mockito.mock(KafkaApis.class, Mockito.CALLS_REAL_METHODS);
        }
        scala.collection.mutable.HashMap<TopicIdPartition, java.util.List<ShareAcknowledgementBatch>> request =
            new scala.collection.mutable.HashMap<>();
        request.put(tip, batches);
        scala.collection.mutable.HashMap<TopicIdPartition, ShareAcknowledgeResponseData.PartitionData> erroneous =
            new scala.collection.mutable.HashMap<>();
        return !apis.validateAcknowledgementBatches(request, erroneous, true, renew).contains(tip);
    }
}
