import { CfnOutput } from 'aws-cdk-lib';
import { DomainName, EndpointType, SecurityPolicy, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

export interface CustomDomainProps {
  api: RestApi;
  domainName: string;
  /** A regional ACM certificate covering `domainName`, in the stack's region. */
  certificateArn: string;
  /** The public hosted zone to add an alias record to; without it, DNS is the operator's (docs/deploy.md). */
  hostedZone?: { id: string; name: string } | undefined;
}

/**
 * The API under its own name: a regional custom domain with the stage at its root, and an alias A
 * record when the zone is given. Everything is named by string; nothing is looked up at synth.
 */
export class CustomDomain extends Construct {
  readonly url: string;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    const domain = new DomainName(this, 'Domain', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
      // The base path mapping: the stage at the domain's root, so paths read as in docs/api.md.
      mapping: props.api,
    });
    if (props.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: props.hostedZone.id, zoneName: props.hostedZone.name });
      new ARecord(this, 'AliasRecord', { zone, recordName: props.domainName, target: RecordTarget.fromAlias(new ApiGatewayDomain(domain)) });
    }
    this.url = `https://${props.domainName}/`;
    new CfnOutput(this, 'CustomUrl', { key: 'CustomUrl', value: this.url, description: 'Base URL of the API under its custom domain' });
  }
}
