import type { RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { AttributeType, Billing, Capacity, ProjectionType, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../lambdas/shared/table';
import type { TableCapacitySetting } from '../stack-config';

/** The single table, built from the same definition the repositories and local bootstrap use. */
export class MessagingTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy; retain: boolean; encryptionKey?: IKey | undefined; capacity?: TableCapacitySetting | undefined }) {
    super(scope, id);
    const { partitionKey, sortKey, timeToLiveAttribute, streamView, indexes } = tableDefinition;
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billing: props.capacity ? provisioned(props.capacity) : Billing.onDemand(),
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
        projectionType: ProjectionType[index.projection],
        ...(index.projection === 'INCLUDE' ? { nonKeyAttributes: [...index.nonKeyAttributes] } : {}),
      })),
    });
  }
}

/**
 * Provisioned and auto scaled; the indexes inherit the table's settings, so each scales on its
 * own use between the same bounds. A table switched from on demand needs a capacity to start with
 * (the seed) until its scaling policies exist: the maximum, so the switch throttles nobody, and
 * auto scaling brings it down to what the traffic uses.
 */
function provisioned({ readUnits, writeUnits, targetUtilizationPercent }: TableCapacitySetting): Billing {
  const autoscaled = ({ min, max }: { min: number; max: number }) => Capacity.autoscaled({ minCapacity: min, maxCapacity: max, targetUtilizationPercent, seedCapacity: max });
  return Billing.provisioned({ readCapacity: autoscaled(readUnits), writeCapacity: autoscaled(writeUnits) });
}
