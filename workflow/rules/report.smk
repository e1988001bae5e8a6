# HTML pages of the Markdown tables for the Snakemake report, which shows HTML inline but
# offers Markdown for download only. The Markdown stays the output read on GitHub; one rule
# per table (caption, category and labels from the experiments' records, REPORT of
# common.smk).


for _key, _entry in REPORT.entries.items():
    if "markdown" not in _entry:
        continue

    rule:
        name:
            f"report_html_{_key}"
        input:
            _entry["markdown"],
        output:
            report(
                _entry["path"],
                caption=f"../report/{_entry['caption']}",
                category=report_category(_key),
                labels=report_labels(_key),
            ),
        log:
            f"logs/report/{_key}.log",
        localrule: True
        conda:
            CONDA_ENV
        params:
            title=f"{REPORT.item(_key)}: {_entry['shows']}",
        script:
            "../scripts/report_html.py"
