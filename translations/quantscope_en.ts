<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>quantscope::AnalysisController</name>
    <message numerus="yes">
        <source>Kurtosis of %n tensor(s)</source>
        <translation>
            <numerusform>Kurtosis of %n tensor</numerusform>
            <numerusform>Kurtosis of %n tensors</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::CompareView</name>
    <message numerus="yes">
        <source>%n module(s) compared</source>
        <translation>
            <numerusform>%n module compared</numerusform>
            <numerusform>%n modules compared</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::DistributionView</name>
    <message numerus="yes">
        <source> (%n value(s) of Ŵ outside W&apos;s range)</source>
        <translation>
            <numerusform> (%n value of Ŵ outside W&apos;s range)</numerusform>
            <numerusform> (%n values of Ŵ outside W&apos;s range)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::JobController</name>
    <message numerus="yes">
        <source>Cancelled; %n finished run(s) are shown as a partial batch.</source>
        <translation>
            <numerusform>Cancelled; %n finished run is shown as a partial batch.</numerusform>
            <numerusform>Cancelled; %n finished runs are shown as a partial batch.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n 1-D tensor(s) (norms, biases); select only them to quantize them.</source>
        <translation>
            <numerusform>Skipped %n 1-D tensor (a norm or bias); select only it to quantize it.</numerusform>
            <numerusform>Skipped %n 1-D tensors (norms, biases); select only them to quantize them.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more run(s) like it: marked ⚠ in the Overview</source>
        <translation>
            <numerusform>%n more run like it: marked ⚠ in the Overview</numerusform>
            <numerusform>%n more runs like it: marked ⚠ in the Overview</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n configuration(s)</source>
        <translation>
            <numerusform>%n configuration</numerusform>
            <numerusform>%n configurations</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n run</numerusform>
            <numerusform>%n runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed (see the log)</source>
        <translation>
            <numerusform>%n failed (see the log)</numerusform>
            <numerusform>%n failed (see the log)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::JobProgressWidget</name>
    <message numerus="yes">
        <source>about %n s left</source>
        <translation>
            <numerusform>about %n s left</numerusform>
            <numerusform>about %n s left</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n min left</source>
        <translation>
            <numerusform>about %n min left</numerusform>
            <numerusform>about %n min left</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisView</name>
    <message numerus="yes">
        <source>Kurtosis of %n tensor(s)</source>
        <translation>
            <numerusform>Kurtosis of %n tensor</numerusform>
            <numerusform>Kurtosis of %n tensors</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::KvController</name>
    <message numerus="yes">
        <source>Studied %n scheme(s) and the plan in %1 ms.</source>
        <translation>
            <numerusform>Studied %n scheme and the plan in %1 ms.</numerusform>
            <numerusform>Studied %n schemes and the plan in %1 ms.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::KvView</name>
    <message numerus="yes">
        <source>The plan: K and V schemes as chosen, the first and last %n layer(s) in BF16</source>
        <translation>
            <numerusform>The plan: K and V schemes as chosen, the first and last %n layer in BF16</numerusform>
            <numerusform>The plan: K and V schemes as chosen, the first and last %n layers in BF16</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::LayersView</name>
    <message numerus="yes">
        <source>%n module(s) scanned</source>
        <translation>
            <numerusform>%n module scanned</numerusform>
            <numerusform>%n modules scanned</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::LoadController</name>
    <message numerus="yes">
        <source>Opened the demo with %n warning(s)</source>
        <translation>
            <numerusform>Opened the demo with %n warning</numerusform>
            <numerusform>Opened the demo with %n warnings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Opened %1 with %n warning(s)</source>
        <translation>
            <numerusform>Opened %1 with %n warning</numerusform>
            <numerusform>Opened %1 with %n warnings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n tensor(s)</source>
        <translation>
            <numerusform>%1: %n tensor</numerusform>
            <numerusform>%1: %n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %2 modules, %n token(s)</source>
        <translation>
            <numerusform>%1 of %2 modules, %n token</numerusform>
            <numerusform>%1 of %2 modules, %n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more capture shape mismatch(es)</source>
        <translation>
            <numerusform>%n more capture shape mismatch</numerusform>
            <numerusform>%n more capture shape mismatches</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n weight(s) of the checkpoint are not in the capture (no output-aware error for them)</source>
        <translation>
            <numerusform>%n weight of the checkpoint is not in the capture (no output-aware error for it)</numerusform>
            <numerusform>%n weights of the checkpoint are not in the capture (no output-aware error for them)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::MainWindow</name>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s)</source>
        <translation>
            <numerusform>%n shard</numerusform>
            <numerusform>%n shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n warning</numerusform>
            <numerusform>%n warnings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Quantscope %1; jobs run on %n thread(s)</source>
        <translation>
            <numerusform>Quantscope %1; jobs run on %n thread</numerusform>
            <numerusform>Quantscope %1; jobs run on %n threads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::ModelController</name>
    <message numerus="yes">
        <source>Measured %n module(s).</source>
        <translation>
            <numerusform>Measured %n module.</numerusform>
            <numerusform>Measured %n modules.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Solving the budget at %n point(s)…</source>
        <translation>
            <numerusform>Solving the budget at %n point…</numerusform>
            <numerusform>Solving the budget at %n points…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Measured %1 of %n budget point(s).</source>
        <translation>
            <numerusform>Measured %1 of %n budget point.</numerusform>
            <numerusform>Measured %1 of %n budget points.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Evaluation: the budget at %n point(s)</source>
        <translation>
            <numerusform>Evaluation: the budget at %n point</numerusform>
            <numerusform>Evaluation: the budget at %n points</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::ModelView</name>
    <message numerus="yes">
        <source>Spearman ρ against the measured KL: output-aware error %1 (%n module(s)), </source>
        <translation>
            <numerusform>Spearman ρ against the measured KL: output-aware error %1 (%n module), </numerusform>
            <numerusform>Spearman ρ against the measured KL: output-aware error %1 (%n modules), </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>weight error ‖W − Ŵ‖/‖W‖ %1 (%n module(s)).</source>
        <translation>
            <numerusform>weight error ‖W − Ŵ‖/‖W‖ %1 (%n module).</numerusform>
            <numerusform>weight error ‖W − Ŵ‖/‖W‖ %1 (%n modules).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::NumbersModel</name>
    <message numerus="yes">
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens, %1 Gram)
%2 = %3</source>
        <translation>
            <numerusform>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n token, %1 Gram)
%2 = %3</numerusform>
            <numerusform>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens, %1 Gram)
%2 = %3</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::OverviewModel</name>
    <message numerus="yes">
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens)</source>
        <translation>
            <numerusform>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n token)</numerusform>
            <numerusform>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::OverviewView</name>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> × %n configuration(s)</source>
        <translation>
            <numerusform> × %n configuration</numerusform>
            <numerusform> × %n configurations</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) on tensors too small for their group or block: not comparable, not tinted (see the tooltip)</source>
        <translation>
            <numerusform>%n run on a tensor too small for its group or block: not comparable, not tinted (see the tooltip)</numerusform>
            <numerusform>%n runs on tensors too small for their group or block: not comparable, not tinted (see the tooltip)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::RecipeEditor</name>
    <message numerus="yes">
        <source>Exclude %n module(s)</source>
        <translation>
            <numerusform>Exclude %n module</numerusform>
            <numerusform>Exclude %n modules</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::SpectrumView</name>
    <message numerus="yes">
        <source>%n configuration(s) without a spectrum: press Compute.</source>
        <translation>
            <numerusform>%n configuration without a spectrum: press Compute.</numerusform>
            <numerusform>%n configurations without a spectrum: press Compute.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::TensorBrowser</name>
    <message numerus="yes">
        <source>%1 of %n tensor(s) selected</source>
        <translation>
            <numerusform>%1 of %n tensor selected</numerusform>
            <numerusform>%1 of %n tensors selected</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shown</source>
        <translation>
            <numerusform>%n shown</numerusform>
            <numerusform>%n shown</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::TensorTreeModel</name>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
</context>
</TS>
