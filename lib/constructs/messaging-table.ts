import type { RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../lambdas/shared/table';

/** The single table, built from the same definition the repositories and local bootstrap use. */
export class MessagingTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy; retain: boolean; encryptionKey?: IKey | undefined }) {
    super(scope, id);
    const { partitionKey, sortKey, timeToLiveAttribute, streamView, indexes } = tableDefinition;
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      encryption: props.encryptionKey ? TableEncryptionV2.customerManagedKey(props.encryptionKey) : TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute,
      dynamoStream: StreamViewType[streamView],
      deletionProtection: props.retain,
      removalPolicy: props.removalPolicy,
      globalSecondaryIndexes: Object.entries(indexes).map(([indexName, index]) => ({
        indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      })),
    });
  }
}
