#!/usr/bin/env python3
"""Writes the recorded price list responses of fixtures/fetch/ (see its README for where every
value comes from), and, with --aws-bench N OUT, an AWS offer file of at least N products for the
`catalog fetch` benchmark (synthetic, for speed only: every GPU instance type of the bundled
catalog in us-east-1, each in the variants a real offer file lists — operating systems,
tenancies, pre-installed software, capacity states — with its bundled Linux price).

    scripts/fetch/make_recordings.py                     # rewrite fixtures/fetch/
    scripts/fetch/make_recordings.py --aws-bench 10000 /tmp/aws-bench   # page-1.json + recording.json
"""
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FETCH = os.path.join(ROOT, 'fixtures', 'fetch')


def sku_of(*parts):
    """A 16-character SKU code (synthetic: real SKU codes are not in the cited sources)."""
    digest = hashlib.sha1('/'.join(parts).encode()).hexdigest().upper()
    alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'
    return ''.join(alphabet[int(digest[i:i + 2], 16) % len(alphabet)] for i in range(0, 32, 2))


def aws_product(sku, itype, attrs):
    a = {'servicecode': 'AmazonEC2', 'location': 'US East (N. Virginia)',
         'locationType': 'AWS Region', 'instanceType': itype, 'currentGeneration': 'Yes',
         'instanceFamily': 'GPU instance' if attrs.get('gpu') else 'General purpose',
         'vcpu': attrs.pop('vcpu'), 'memory': attrs.pop('memory'), 'storage': 'EBS only',
         'tenancy': 'Shared', 'operatingSystem': 'Linux', 'licenseModel': 'No License required',
         'usagetype': 'BoxUsage:' + itype, 'operation': 'RunInstances', 'capacitystatus': 'Used',
         'preInstalledSw': 'NA', 'regionCode': 'us-east-1', 'servicename': 'Amazon Elastic Compute Cloud'}
    a.update(attrs)
    return {'sku': sku, 'productFamily': 'Compute Instance', 'attributes': a}


def aws_term(sku, itype, usd, os_name='Linux'):
    code = 'JRTCKXETXF'
    dim = f'{sku}.{code}.6YS6EN2CT7'
    return {f'{sku}.{code}': {
        'offerTermCode': code, 'sku': sku, 'effectiveDate': '2026-07-01T00:00:00Z',
        'priceDimensions': {dim: {
            'rateCode': dim, 'description': f'${usd} per On Demand {os_name} {itype} Instance Hour',
            'beginRange': '0', 'endRange': 'Inf', 'unit': 'Hrs',
            'pricePerUnit': {'USD': f'{float(usd):.10f}'}, 'appliesTo': []}},
        'termAttributes': {}}}


def aws_offer(products, on_demand, reserved):
    return {'formatVersion': 'v1.0',
            'disclaimer': 'This pricing list is for informational purposes only.',
            'offerCode': 'AmazonEC2', 'version': '20260720000000',
            'publicationDate': '2026-07-20T00:00:00Z',
            'products': products, 'terms': {'OnDemand': on_demand, 'Reserved': reserved}}


# (type, vCPU, memory, gpu count, Linux on-demand USD/h in us-east-1) from
# aws/karpenter-provider-aws@6fc13b5236fd04fd16ff3f9dc7490d0813994099:
# pkg/providers/pricing/zz_generated.pricing_aws.go (committed 2026-07-21T04:17:51Z).
AWS_TYPES = [('p3.2xlarge', '8', '61 GiB', '1', '3.06'), ('p3.8xlarge', '32', '244 GiB', '4', '12.24'),
             ('g4dn.xlarge', '4', '16 GiB', '1', '0.526'), ('g5.xlarge', '4', '16 GiB', '1', '1.006'),
             ('g6.xlarge', '4', '16 GiB', '1', '0.8048'),
             ('dl1.24xlarge', '96', '768 GiB', '8', '13.10904'),  # not in the catalog
             ('m5.large', '2', '8 GiB', None, '0.096')]             # not a GPU type


def aws_recording():
    products, on_demand, reserved = {}, {}, {}
    for itype, vcpu, mem, gpu, usd in AWS_TYPES:
        attrs = {'vcpu': vcpu, 'memory': mem}
        if gpu:
            attrs['gpu'] = gpu
        sku = sku_of('aws', itype, 'linux')
        products[sku] = aws_product(sku, itype, dict(attrs))
        on_demand[sku] = aws_term(sku, itype, usd)
    # Variants the converter must skip (their on-demand price: the Linux one, a stand-in).
    for variant in ({'operatingSystem': 'Windows', 'licenseModel': 'No License required'},
                    {'tenancy': 'Dedicated'}, {'capacitystatus': 'UnusedCapacityReservation'},
                    {'preInstalledSw': 'SQL Web'}):
        sku = sku_of('aws', 'p3.2xlarge', json.dumps(variant))
        attrs = {'vcpu': '8', 'memory': '61 GiB', 'gpu': '1'}
        attrs.update(variant)
        products[sku] = aws_product(sku, 'p3.2xlarge', attrs)
        on_demand[sku] = aws_term(sku, 'p3.2xlarge', '3.06')
    ebs = sku_of('aws', 'ebs-gp3')
    products[ebs] = {'sku': ebs, 'productFamily': 'Storage', 'attributes': {
        'servicecode': 'AmazonEC2', 'location': 'US East (N. Virginia)', 'regionCode': 'us-east-1',
        'volumeApiName': 'gp3', 'usagetype': 'EBS:VolumeUsage.gp3'}}
    p3 = sku_of('aws', 'p3.2xlarge', 'linux')
    reserved[p3] = {f'{p3}.4NA7Y494T4': {'offerTermCode': '4NA7Y494T4', 'sku': p3,
                                          'effectiveDate': '2026-07-01T00:00:00Z',
                                          'priceDimensions': {}, 'termAttributes': {
                                              'LeaseContractLength': '1yr',
                                              'OfferingClass': 'standard',
                                              'PurchaseOption': 'No Upfront'}}}
    return aws_offer(products, on_demand, reserved)


def azure_item(sku, meter, product, price, kind='Consumption', **extra):
    item = {'currencyCode': 'USD', 'tierMinimumUnits': 0.0, 'retailPrice': price,
            'unitPrice': price, 'armRegionName': 'eastus', 'location': 'US East',
            'effectiveStartDate': '2024-01-01T00:00:00Z', 'meterId': sku_of('azure', sku, meter, kind),
            'meterName': meter, 'productId': 'DZH318Z0' + sku_of(product)[:4],
            'skuId': 'DZH318Z0' + sku_of(product)[:4] + '/' + sku_of(meter)[:4],
            'productName': product, 'skuName': meter, 'serviceName': 'Virtual Machines',
            'serviceId': 'DZH313Z7MMC8', 'serviceFamily': 'Compute', 'unitOfMeasure': '1 Hour',
            'type': kind, 'isPrimaryMeterRegion': True, 'armSkuName': sku}
    item.update(extra)
    return item


AZURE_FILTER = ("https://prices.azure.com:443/api/retail/prices?$filter=serviceName%20eq%20"
                "%27Virtual%20Machines%27%20and%20priceType%20eq%20%27Consumption%27%20and%20"
                "armRegionName%20eq%20%27eastus%27")


def azure_pages():
    ncs = 'Virtual Machines NCSv3 Series'
    page1 = [azure_item('Standard_NC6s_v3', 'NC6s v3', ncs, 3.06),
             azure_item('Standard_NC6s_v3', 'NC6s v3', ncs + ' Windows', 3.06),
             azure_item('Standard_NC6s_v3', 'NC6s v3 Spot', ncs, 0.3978),
             azure_item('Standard_NC6s_v3', 'NC6s v3 Low Priority', ncs, 0.3978),
             azure_item('Standard_D2s_v3', 'D2s v3', 'Virtual Machines DSv3 Series', 0.096)]
    page2 = [azure_item('Standard_NC24ads_A100_v4', 'NC24ads A100 v4',
                        'Virtual Machines NCadsA100v4 Series', 3.673),
             azure_item('Standard_NC4as_T4_v3', 'NC4as T4 v3', 'Virtual Machines NCasT4_v3 Series', 0.526),
             azure_item('Standard_NC4as_T4_v3', 'NC4as T4 v3 Spot', 'Virtual Machines NCasT4_v3 Series',
                        0.062699),
             azure_item('Standard_NC8lds_xl_RTXPRO6000BSE_v6', 'NC8lds xl RTXPRO6000BSE v6',
                        'Virtual Machines NCdsxlRTXPRO6000BSEv6 Series', 0.55),
             azure_item('Standard_NC6s_v3', 'NC6s v3', ncs, 3.06, kind='Reservation',
                        reservationTerm='1 Year')]
    head = {'BillingCurrency': 'USD', 'CustomerEntityId': 'Default', 'CustomerEntityType': 'Retail'}
    return [dict(head, Items=page1, NextPageLink=AZURE_FILTER + '&$skip=5', Count=len(page1)),
            dict(head, Items=page2, NextPageLink=None, Count=len(page2))]


def google_sku(description, group, usage, regions, units, nanos, sku_id):
    return {'name': f'services/6F81-5844-456A/skus/{sku_id}', 'skuId': sku_id,
            'description': description,
            'category': {'serviceDisplayName': 'Compute Engine', 'resourceFamily': 'Compute',
                         'resourceGroup': group, 'usageType': usage},
            'serviceRegions': regions,
            'pricingInfo': [{'summary': '', 'pricingExpression': {
                'usageUnit': 'h', 'displayQuantity': 1, 'usageUnitDescription': 'hour',
                'baseUnit': 's', 'baseUnitDescription': 'second', 'baseUnitConversionFactor': 3600,
                'tieredRates': [{'startUsageAmount': 0, 'unitPrice': {
                    'currencyCode': 'USD', 'units': units, 'nanos': nanos}}]},
                'currencyConversionRate': 1, 'effectiveTime': '2025-08-30T00:00:00Z'}],
            'serviceProviderName': 'Google', 'geoTaxonomy': {'type': 'REGIONAL', 'regions': regions}}


def google_pages():
    sid = lambda *p: '-'.join(sku_of('google', *p)[i:i + 4] for i in (0, 4, 8))
    spot = 'attached to Spot Preemptible VMs running in'
    page1 = [google_sku('Nvidia Tesla V100 GPU running in Americas', 'GPU', 'OnDemand',
                        ['us-central1'], '2', 480000000, sid('v100', 'am')),
             google_sku('Nvidia Tesla V100 GPU running in Netherlands', 'GPU', 'OnDemand',
                        ['europe-west4'], '2', 604000000, sid('v100', 'nl')),
             google_sku(f'Nvidia Tesla V100 GPU {spot} Americas', 'GPU', 'Preemptible',
                        ['us-central1', 'us-east1'], '0', 992000000, sid('v100s', 'am')),
             google_sku(f'Nvidia Tesla V100 GPU {spot} Netherlands', 'GPU', 'Preemptible',
                        ['europe-west4'], '0', 714800000, sid('v100s', 'nl')),
             google_sku('N1 Predefined Instance Core running in Americas', 'N1Standard', 'OnDemand',
                        ['us-central1'], '0', 31611000, sid('n1core', 'am'))]
    page2 = [google_sku('Nvidia Tesla T4 GPU running in Netherlands', 'GPU', 'OnDemand',
                        ['europe-west4'], '0', 367500000, sid('t4', 'nl')),
             google_sku(f'Nvidia Tesla T4 GPU {spot} Americas', 'GPU', 'Preemptible',
                        ['us-central1', 'us-east1'], '0', 140000000, sid('t4s', 'am')),
             google_sku(f'Nvidia Tesla T4 GPU {spot} Netherlands', 'GPU', 'Preemptible',
                        ['europe-west4'], '0', 140000000, sid('t4s', 'nl')),
             google_sku('Commitment v1: Nvidia Tesla V100 GPU in Americas for 1 Year', 'GPU',
                        'Commit1Yr', ['us-central1'], '1', 562000000, sid('v100c', 'am')),
             google_sku('Nvidia Tesla T4 Virtual Workstation GPU running in Americas', 'GPU',
                        'OnDemand', ['us-central1'], '0', 550000000, sid('t4vws', 'am'))]
    return [{'skus': page1, 'nextPageToken': 'CAUQAQ=='}, {'skus': page2, 'nextPageToken': ''}]


def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(value, f, indent=1)
        f.write('\n')


def aws_bench(n, out):
    """At least n products: every bundled AWS GPU type with a us-east-1 payg price, in variants."""
    catalog = json.load(open(os.path.join(ROOT, 'fixtures', 'catalog', '40-aws.json')))
    types = {t['id']: t for t in catalog['instance_types'] if t.get('gpu')}
    price = {}
    for p in catalog['prices']:
        if p.get('region') == 'us-east-1' and p['mode'] == 'payg' and p.get('instance_type') in types:
            price[p['instance_type']] = p['amount']  # file order: the latest row last
    variants = [dict(operatingSystem=o, tenancy=t, preInstalledSw=s, capacitystatus=c)
                for o in ('Linux', 'Windows', 'RHEL', 'SUSE', 'Ubuntu Pro', 'Red Hat Enterprise Linux with HA')
                for t in ('Shared', 'Dedicated', 'Host')
                for s in ('NA', 'SQL Web', 'SQL Std', 'SQL Ent')
                for c in ('Used', 'UnusedCapacityReservation', 'AllocatedCapacityReservation')]
    products, on_demand = {}, {}
    rounds = 0
    while len(products) < n:
        for itype, usd in sorted(price.items()):
            t = types[itype]
            for v in variants:
                sku = sku_of('bench', str(rounds), itype, json.dumps(v))
                attrs = {'vcpu': str(t.get('vcpu', 8)), 'memory': f"{t.get('ram_gb', '16')} GiB",
                         'gpu': t.get('gpu_count', '1')}
                attrs.update(v)
                products[sku] = aws_product(sku, itype, attrs)
                on_demand[sku] = aws_term(sku, itype, usd)
        rounds += 1
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'page-1.json'), 'w') as f:
        json.dump(aws_offer(products, on_demand, {}), f, indent=1)
    write(os.path.join(out, 'recording.json'), {
        'recorded_at': '2026-07-21T04:17:51Z',
        'provenance': 'SYNTHETIC benchmark input made by scripts/fetch/make_recordings.py --aws-bench '
                      f'{n}: the bundled catalog\'s AWS GPU types and us-east-1 prices in an offer '
                      'file\'s shape, for speed only'})
    print(f'{out}/page-1.json: {len(products)} products, {len(price)} GPU types')


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--aws-bench':
        aws_bench(int(sys.argv[2]), sys.argv[3])
        return
    write(os.path.join(FETCH, 'aws', 'us-east-1', 'page-1.json'), aws_recording())
    for i, page in enumerate(azure_pages(), 1):
        write(os.path.join(FETCH, 'azure', 'eastus', f'page-{i}.json'), page)
    for i, page in enumerate(google_pages(), 1):
        write(os.path.join(FETCH, 'google', f'page-{i}.json'), page)
    meta = {
        'aws/us-east-1': ('2026-07-21T04:17:51Z',
                          'assembled from the offer file format (docs.aws.amazon.com/awsaccountbilling/'
                          'latest/aboutv2/reading-an-offer.html) with the us-east-1 Linux on-demand prices of '
                          'aws/karpenter-provider-aws@6fc13b5236fd04fd16ff3f9dc7490d0813994099:pkg/providers/'
                          'pricing/zz_generated.pricing_aws.go (committed 2026-07-21T04:17:51Z); SKU codes synthetic; '
                          'see fixtures/fetch/README.md'),
        'azure/eastus': ('2026-06-18T03:43:41Z',
                         'assembled from the Retail Prices API format (learn.microsoft.com/en-us/rest/api/'
                         'cost-management/retail-prices/azure-retail-prices) with the East US pay-as-you-go prices of '
                         'Azure/karpenter-provider-azure@2b431da153a6a92b705c18046512c60b1631b682:pkg/providers/pricing/'
                         'zz_generated.pricing.go (generated 2026-06-18T03:43:41Z) and Spot prices of '
                         'skypilot-org/skypilot-catalog@3f5f697196c9278346b0271342031fff6b37036d:catalogs/v5/azure/vms.csv '
                         '(2024-08-18); see fixtures/fetch/README.md'),
        'google': ('2025-08-30T12:00:00Z',
                   'assembled from the Cloud Billing Catalog SKU format (cloud.google.com/billing/docs/reference/'
                   'rest/v1/services.skus/list) with per-GPU prices of skypilot-org/skypilot-catalog@'
                   '017e2502fb63c7a28757acd94002b2d6099d3e3d:catalogs/v7/gcp/vms.csv (2025-08-30); SKU ids '
                   'synthetic; see fixtures/fetch/README.md'),
    }
    for d, (at, prov) in meta.items():
        write(os.path.join(FETCH, d, 'recording.json'), {'recorded_at': at, 'provenance': prov})


if __name__ == '__main__':
    main()
