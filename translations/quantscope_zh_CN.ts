<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DeviceQuery</name>
    <message>
        <source>No GPU: this build has no GPU support</source>
        <translation>无 GPU：此构建不支持 GPU</translation>
    </message>
    <message>
        <source>No %1 GPU found</source>
        <translation>未找到 %1 GPU</translation>
    </message>
    <message>
        <source>An %1 GPU is present, but its driver is missing or older than this build needs: install or update the %1 driver (%2)</source>
        <translation>存在 %1 GPU，但其驱动缺失或版本低于此构建的要求：请安装或更新 %1 驱动（%2）</translation>
    </message>
    <message>
        <source>An %1 GPU is present, but it did not start (%2)</source>
        <translation>存在 %1 GPU，但未能启动（%2）</translation>
    </message>
    <message>
        <source>%1: %2, %3 threads, %4 GiB RAM (%5 GiB free)</source>
        <translation>%1：%2，%3 个线程，%4 GiB 内存（%5 GiB 可用）</translation>
    </message>
    <message>
        <source>%1: %2, %3 GiB memory (%4 GiB free), %5 SMs</source>
        <translation>%1：%2，%3 GiB 显存（%4 GiB 可用），%5 个 SM</translation>
    </message>
    <message>
        <source>%1 runs %2; on the CPU: %3</source>
        <translation>%1 运行 %2；在 CPU 上：%3</translation>
    </message>
    <message>
        <source>GPU: %1 (%2, %3 GiB free of %4)</source>
        <translation>GPU：%1（%2，%4 GiB 中 %3 GiB 可用）</translation>
    </message>
    <message>
        <source>CPU: %1 threads (%2)</source>
        <translation>CPU：%1 个线程（%2）</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Quantization workbench for LLM tensors.</source>
        <translation>面向 LLM 张量的量化工作台。</translation>
    </message>
    <message>
        <source>Once the checkpoint has been opened (or has failed to open), save the window as a PNG to &lt;file&gt; and quit.</source>
        <translation>检查点打开（或打开失败）后，将窗口保存为 PNG 到 &lt;file&gt; 并退出。</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Once the checkpoint is open, quantize a weight of it with three configurations (for screenshots and first looks).</source>
        <translation>检查点打开后，用三种配置量化其中一个权重（用于截图和初步查看）。</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>A .safetensors file, a model.safetensors.index.json, a checkpoint folder, a .npy/.npz file or a .qscope session. Without it, the built-in demo opens.</source>
        <translation>.safetensors 文件、model.safetensors.index.json、检查点文件夹、.npy/.npz 文件或 .qscope 会话。不指定时打开内置演示。</translation>
    </message>
    <message>
        <source>Give at most one path to open.</source>
        <translation>最多只能指定一个要打开的路径。</translation>
    </message>
    <message>
        <source>Once the checkpoint is open, compare &lt;paths&gt; (A,B or A,B,REFERENCE) in the Compare view.</source>
        <translation>检查点打开后，在“对比”视图中对比 &lt;paths&gt;（A,B 或 A,B,参考）。</translation>
    </message>
    <message>
        <source>paths</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Show the view &lt;name&gt; (spectrum: with the residual spectra computed). Views: %1.</source>
        <translation>显示视图 &lt;name&gt;（spectrum：同时计算残差谱）。视图：%1。</translation>
    </message>
</context>
<context>
    <name>quantscope::AnalysisController</name>
    <message>
        <source>&amp;Scale constant</source>
        <translation>缩放常数(&amp;S)</translation>
    </message>
    <message>
        <source>constOpt&apos;s MSE for every scale constant c; click to set c</source>
        <translation>constOpt 在每个缩放常数 c 下的 MSE；点击以设置 c</translation>
    </message>
    <message>
        <source>&amp;Kurtosis</source>
        <translation>峰度(&amp;K)</translation>
    </message>
    <message>
        <source>Per-channel excess kurtosis and the error it brings</source>
        <translation>逐通道超额峰度及其带来的误差</translation>
    </message>
    <message>
        <source>&amp;GEMM timing</source>
        <translation>GEMM 计时(&amp;G)</translation>
    </message>
    <message>
        <source>What BF16, FP8 and INT8 GEMMs of the tensor&apos;s shape cost against M</source>
        <translation>与该张量形状相同的 BF16、FP8 和 INT8 GEMM 随 M 变化的耗时</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>The sweep failed: %1</source>
        <translation>扫描失败：%1</translation>
    </message>
    <message>
        <source>Computing the kurtosis failed: %1</source>
        <translation>计算峰度失败：%1</translation>
    </message>
    <message>
        <source>Timing the GEMMs failed: %1</source>
        <translation>GEMM 计时失败：%1</translation>
    </message>
    <message>
        <source>Scale-constant sweep of %1</source>
        <translation>%1 的缩放常数扫描</translation>
    </message>
    <message numerus="yes">
        <source>Kurtosis of %n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量的峰度</numerusform>
        </translation>
    </message>
    <message>
        <source>GEMM timing of %1</source>
        <translation>%1 的 GEMM 计时</translation>
    </message>
</context>
<context>
    <name>quantscope::BudgetBarsPlot</name>
    <message>
        <source>module (checkpoint order)</source>
        <translation>模块（检查点顺序）</translation>
    </message>
    <message>
        <source>bits per weight</source>
        <translation>每权重比特数</translation>
    </message>
    <message>
        <source>%1: %2, %3 bits per weight</source>
        <translation>%1：%2，每权重 %3 比特</translation>
    </message>
</context>
<context>
    <name>quantscope::BudgetPointsPlot</name>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>measured KL (nats/token)</source>
        <translation>实测 KL（nat/词元）</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>预测值</translation>
    </message>
    <message>
        <source>measured KL</source>
        <translation>实测 KL</translation>
    </message>
    <message>
        <source>KL 95 % interval</source>
        <translation>KL 的 95 % 区间</translation>
    </message>
    <message>
        <source>predicted output-aware error</source>
        <translation>预测的输出感知误差</translation>
    </message>
    <message>
        <source>predicted weight error ‖W − Ŵ‖²</source>
        <translation>预测的权重误差 ‖W − Ŵ‖²</translation>
    </message>
    <message>
        <source>%1 MB: predicted %2</source>
        <translation>%1 MB：预测 %2</translation>
    </message>
    <message>
        <source>KL %1 (95 % interval %2 … %3), top-1 %4, perplexity %5</source>
        <translation>KL %1（95 % 区间 %2 … %3），Top-1 %4，困惑度 %5</translation>
    </message>
</context>
<context>
    <name>quantscope::BudgetView</name>
    <message>
        <source>Scan with several configurations to choose one per module under a size budget.</source>
        <translation>使用多个配置扫描，以便在大小预算内为每个模块选择一个。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Budget:</source>
        <translation>预算：</translation>
    </message>
    <message>
        <source>Sweep the selected tensor</source>
        <translation>扫描所选张量</translation>
    </message>
    <message>
        <source>%1: excess kurtosis %2, after the Hadamard rotation %3</source>
        <translation>%1：超额峰度 %2，Hadamard 旋转后 %3</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>Quark</source>
        <translation>Quark</translation>
    </message>
    <message>
        <source>compressed-tensors</source>
        <translation>compressed-tensors</translation>
    </message>
    <message>
        <source>FP8 block</source>
        <translation>FP8 块</translation>
    </message>
    <message>
        <source>Quantscope native</source>
        <translation>Quantscope 原生</translation>
    </message>
    <message>
        <source>Price only the configurations this checkpoint format can store; Any prices every configuration and says which formats can export the choice</source>
        <translation>只评估此检查点格式能存储的配置；“任意”评估所有配置，并说明哪些格式能导出所选结果</translation>
    </message>
    <message>
        <source>Target:</source>
        <translation>目标：</translation>
    </message>
    <message>
        <source>Kept dense: %1 modules. Exports to: %2.</source>
        <translation>保持稠密：%1 个模块。可导出到：%2。</translation>
    </message>
    <message>
        <source>no format</source>
        <translation>无格式</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Weight error</source>
        <translation>权重误差</translation>
    </message>
    <message>
        <source>Output-aware error</source>
        <translation>输出感知误差</translation>
    </message>
    <message>
        <source>What the budget minimises: the squared weight error ‖W − Ŵ‖², or the output-aware error E‖(W − Ŵ)x‖² on the capture the scan was paired with. Auto takes the output-aware error when every priced run has one</source>
        <translation>预算最小化的目标：平方权重误差 ‖W − Ŵ‖²，或扫描所配对采集上的输出感知误差 E‖(W − Ŵ)x‖²。“自动”在每个已评估的运行都有输出感知误差时采用它</translation>
    </message>
    <message>
        <source>Minimise:</source>
        <translation>最小化：</translation>
    </message>
    <message>
        <source>Minimising %1: %2</source>
        <translation>最小化%1：%2</translation>
    </message>
    <message>
        <source>the output-aware error</source>
        <translation>输出感知误差</translation>
    </message>
    <message>
        <source>the weight error</source>
        <translation>权重误差</translation>
    </message>
    <message>
        <source>Budget %1 MB: chosen %2 MB, %3 bits per weight, total %4 %5 (exact, %6 modules)</source>
        <translation>预算 %1 MB：选中 %2 MB，每权重 %3 比特，总%4 %5（精确，%6 个模块）</translation>
    </message>
    <message>
        <source>output-aware error E‖(W − Ŵ)x‖²</source>
        <translation>输出感知误差 E‖(W − Ŵ)x‖²</translation>
    </message>
    <message>
        <source>squared weight error ‖W − Ŵ‖²</source>
        <translation>平方权重误差 ‖W − Ŵ‖²</translation>
    </message>
    <message>
        <source>No scan yet: add two or more configurations in the Quantizer dock and press Scan checkpoint in the Layers tab; then choose one per module under a size budget here.</source>
        <translation>尚未扫描：在量化器面板中添加两个或更多配置，并在“层”标签页中点击“扫描检查点”；然后在此处于大小预算内为每个模块选择一个配置。</translation>
    </message>
    <message>
        <source>optimum</source>
        <translation>最优</translation>
    </message>
</context>
<context>
    <name>quantscope::ChannelPlot</name>
    <message>
        <source>max |w|</source>
        <translation>最大 |w|</translation>
    </message>
    <message>
        <source>max |x|</source>
        <translation>最大 |x|</translation>
    </message>
    <message>
        <source>input channel (column)</source>
        <translation>输入通道（列）</translation>
    </message>
    <message>
        <source>output channel (row)</source>
        <translation>输出通道（行）</translation>
    </message>
    <message>
        <source>channel max |w|</source>
        <translation>通道最大 |w|</translation>
    </message>
    <message>
        <source>top outlier channels</source>
        <translation>最大离群通道</translation>
    </message>
    <message>
        <source>activation max |x|</source>
        <translation>激活最大 |x|</translation>
    </message>
    <message>
        <source>channel %1: max |w| %2</source>
        <translation>通道 %1：最大 |w| %2</translation>
    </message>
    <message>
        <source> (%1× the median channel)</source>
        <translation>（中位通道的 %1 倍）</translation>
    </message>
    <message>
        <source>activation: max |x| %1</source>
        <translation>激活：最大 |x| %1</translation>
    </message>
</context>
<context>
    <name>quantscope::CheckpointLoader</name>
    <message>
        <source>not quantized</source>
        <translation>未量化</translation>
    </message>
    <message>
        <source>%1 elements, no scale found</source>
        <translation>%1 个元素，未找到缩放因子</translation>
    </message>
    <message>
        <source>%1 integers (codes, indices or packed words)</source>
        <translation>%1 个整数（码值、索引或打包字）</translation>
    </message>
    <message>
        <source>quantized</source>
        <translation>已量化</translation>
    </message>
</context>
<context>
    <name>quantscope::CompareController</name>
    <message>
        <source>Co&amp;mpare</source>
        <translation>对比(&amp;M)</translation>
    </message>
    <message>
        <source>How two quantized checkpoints, or two scan reports, differ module by module</source>
        <translation>两个量化检查点（或两份扫描报告）逐模块的差异</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Comparing</source>
        <translation>正在对比</translation>
    </message>
    <message>
        <source>Comparison finished</source>
        <translation>对比完成</translation>
    </message>
    <message>
        <source>The comparison failed: %1</source>
        <translation>对比失败：%1</translation>
    </message>
    <message>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <source>Comparing %1 with %2</source>
        <translation>比较 %1 与 %2</translation>
    </message>
</context>
<context>
    <name>quantscope::CompareView</name>
    <message>
        <source>Checkpoint or scan report</source>
        <translation>检查点或扫描报告</translation>
    </message>
    <message>
        <source>Reference checkpoint (optional)</source>
        <translation>参考检查点（可选）</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Compare A and B module by module in the background</source>
        <translation>在后台逐模块对比 A 与 B</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Δ error (A − B)</source>
        <translation>误差差值 Δ (A − B)</translation>
    </message>
    <message>
        <source>Error A</source>
        <translation>误差 A</translation>
    </message>
    <message>
        <source>Error B</source>
        <translation>误差 B</translation>
    </message>
    <message>
        <source>Codes differing</source>
        <translation>不同的码值</translation>
    </message>
    <message>
        <source>The number the cells are coloured by</source>
        <translation>单元格着色所依据的数值</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <source>Scheme difference</source>
        <translation>方案差异</translation>
    </message>
    <message>
        <source>No comparison yet: give two checkpoints or two scan reports and press Compare.</source>
        <translation>尚无对比：请给出两个检查点或两份扫描报告，然后点击“对比”。</translation>
    </message>
    <message numerus="yes">
        <source>%n module(s) compared</source>
        <translation>
            <numerusform>已对比 %n 个模块</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 differ, %2 on one side only</source>
        <translation>%1 个不同，%2 个仅在一侧</translation>
    </message>
    <message>
        <source>Spearman %1</source>
        <translation>Spearman 秩相关 %1</translation>
    </message>
    <message>
        <source>Choose a checkpoint file or a scan report (a checkpoint folder can be typed)</source>
        <translation>选择检查点文件或扫描报告（检查点文件夹可直接输入）</translation>
    </message>
    <message>
        <source>Choose a Checkpoint or Scan Report</source>
        <translation>选择检查点或扫描报告</translation>
    </message>
    <message>
        <source>Checkpoints and scan reports (*.safetensors *.json *.jsonl *.npz);;All files (*)</source>
        <translation>检查点和扫描报告 (*.safetensors *.json *.jsonl *.npz);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>quantscope::CoreMessages</name>
    <message>
        <source>profiling %1</source>
        <translation>分析 %1</translation>
    </message>
    <message>
        <source>profiling channels of %1</source>
        <translation>分析 %1 的通道</translation>
    </message>
    <message>
        <source>spectrum of %1</source>
        <translation>%1 的谱</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>未知错误</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>activation %1: %2</source>
        <translation>激活 %1：%2</translation>
    </message>
    <message>
        <source>activation has %1 channels, the weight %2 input channels: not paired</source>
        <translation>激活有 %1 个通道，权重有 %2 个输入通道：未配对</translation>
    </message>
    <message>
        <source>activation not available</source>
        <translation>激活不可用</translation>
    </message>
    <message>
        <source>not in the capture %1</source>
        <translation>不在采集 %1 中</translation>
    </message>
    <message>
        <source>absmax of the loaded tensor</source>
        <translation>已加载张量的绝对值最大值</translation>
    </message>
    <message>
        <source>GPU failed (%1)</source>
        <translation>GPU 出错（%1）</translation>
    </message>
    <message>
        <source>GPU failed (%1): computed on the CPU</source>
        <translation>GPU 出错（%1）：已在 CPU 上计算</translation>
    </message>
    <message>
        <source>%1: computed on the CPU</source>
        <translation>%1：已在 CPU 上计算</translation>
    </message>
    <message>
        <source>computed on the CPU</source>
        <translation>已在 CPU 上计算</translation>
    </message>
    <message>
        <source>empty tensor: computed on the CPU</source>
        <translation>空张量：已在 CPU 上计算</translation>
    </message>
    <message>
        <source>the engine returned no metrics</source>
        <translation>引擎未返回任何指标</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>channel kurtosis of %1 on the device: %2</source>
        <translation>%1 在设备上的通道峰度：%2</translation>
    </message>
    <message>
        <source>device must be auto, cpu or gpu, not &apos;%1&apos;</source>
        <translation>设备必须是 auto、cpu 或 gpu，而不是“%1”</translation>
    </message>
    <message>
        <source>GPU requested but unavailable (%1)</source>
        <translation>已请求 GPU，但不可用（%1）</translation>
    </message>
    <message>
        <source>GPU requested but unavailable (%1): computed on the CPU</source>
        <translation>已请求 GPU，但不可用（%1）：已在 CPU 上计算</translation>
    </message>
    <message>
        <source>GPU requested but this build&apos;s GPU backend has no KV lab: computed on the CPU</source>
        <translation>已请求 GPU，但此版本的 GPU 后端没有 KV 实验室：已在 CPU 上计算</translation>
    </message>
    <message>
        <source>the GPU does not sweep this tensor: computed on the CPU</source>
        <translation>GPU 不扫描此张量：已在 CPU 上计算</translation>
    </message>
    <message>
        <source>the device failed (%1)</source>
        <translation>设备出错（%1）</translation>
    </message>
    <message>
        <source>roofline: %1</source>
        <translation>屋顶线：%1</translation>
    </message>
    <message>
        <source>roofline not cached: %1</source>
        <translation>屋顶线未缓存：%1</translation>
    </message>
    <message>
        <source>GEMM lab not run on %1 (%2)</source>
        <translation>GEMM 实验室未在 %1 上运行（%2）</translation>
    </message>
    <message>
        <source>no device kernel</source>
        <translation>没有设备内核</translation>
    </message>
    <message>
        <source>no device linear algebra</source>
        <translation>没有设备线性代数</translation>
    </message>
    <message>
        <source>no GEMM lab on this backend</source>
        <translation>此后端没有 GEMM 实验室</translation>
    </message>
    <message>
        <source>no device channel moments</source>
        <translation>没有设备通道矩</translation>
    </message>
    <message>
        <source>no output-aware error on this backend</source>
        <translation>此后端没有输出感知误差</translation>
    </message>
    <message>
        <source>built without a GPU backend</source>
        <translation>构建时未包含 GPU 后端</translation>
    </message>
    <message>
        <source>no %1 GPU found</source>
        <translation>未找到 %1 GPU</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but its driver is missing or older than this build&apos;s %2 runtime: install or update the %3 driver</source>
        <translation>存在 %1 GPU，但其驱动程序缺失或早于此版本的 %2 运行时：请安装或更新 %3 驱动程序</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but its driver is missing or older than this build&apos;s %2 runtime (%3): install or update the %4 driver</source>
        <translation>存在 %1 GPU，但其驱动程序缺失或早于此版本的 %2 运行时（%3）：请安装或更新 %4 驱动程序</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but it did not start</source>
        <translation>存在 %1 GPU，但未能启动</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but it did not start (%2)</source>
        <translation>存在 %1 GPU，但未能启动（%2）</translation>
    </message>
    <message>
        <source>Ŵ has %1 elements, W has %2</source>
        <translation>Ŵ 有 %1 个元素，W 有 %2 个</translation>
    </message>
    <message>
        <source>output-aware error: %1 values are not %2 rows of K = %3</source>
        <translation>输出感知误差：%1 个值不是 %2 行 K = %3</translation>
    </message>
    <message>
        <source>output-aware error: the weight is %1 but the Gram is for K = %2</source>
        <translation>输出感知误差：权重为 %1，但 Gram 矩阵对应 K = %2</translation>
    </message>
    <message>
        <source>spectrum: the matrix has %1 elements, not %2x%3</source>
        <translation>谱：矩阵有 %1 个元素，而不是 %2×%3</translation>
    </message>
    <message>
        <source>spectrum: tau must be in (0, 1]</source>
        <translation>谱：tau 必须在 (0, 1] 内</translation>
    </message>
    <message>
        <source>spectrum: the matrix holds NaN/Inf at element %1</source>
        <translation>谱：矩阵在第 %1 个元素处含有 NaN/Inf</translation>
    </message>
    <message>
        <source>Hadamard rotation size must be a power of two ≥ 2, got %1</source>
        <translation>Hadamard 旋转大小必须是 ≥ 2 的 2 的幂，实际为 %1</translation>
    </message>
    <message>
        <source>Hadamard rotation of size %1 needs K divisible by it; K = %2 is not</source>
        <translation>大小为 %1 的 Hadamard 旋转要求 K 能被其整除；K = %2 不能</translation>
    </message>
    <message>
        <source>the bidiagonal singular value iteration did not converge</source>
        <translation>双对角奇异值迭代未收敛</translation>
    </message>
    <message>
        <source>all singular values are computed for min(N, K) ≤ %1 only (here %2); ask for the top k instead</source>
        <translation>仅当 min(N, K) ≤ %1 时才计算全部奇异值（此处为 %2）；请改为请求前 k 个</translation>
    </message>
    <message>
        <source>top-k spectrum needs k ≥ 1</source>
        <translation>前 k 谱需要 k ≥ 1</translation>
    </message>
    <message>
        <source>power iterations and oversampling must be ≥ 0</source>
        <translation>幂迭代次数和过采样必须 ≥ 0</translation>
    </message>
    <message>
        <source>svd_lowrank needs q ≥ 1</source>
        <translation>svd_lowrank 需要 q ≥ 1</translation>
    </message>
    <message>
        <source>group %1 is longer than a row (%2 elements): each row is one short group, so this is not the group size it says</source>
        <translation>组 %1 比一行（%2 个元素）更长：每行都是一个较短的组，因此这并不是它所标明的组大小</translation>
    </message>
    <message>
        <source>block %1 is longer than a row (%2 elements): each row is one short group, so this is not the block size it says</source>
        <translation>块 %1 比一行（%2 个元素）更长：每行都是一个较短的组，因此这并不是它所标明的块大小</translation>
    </message>
    <message>
        <source>channel moment sums of unequal lengths</source>
        <translation>通道矩之和长度不一致</translation>
    </message>
    <message>
        <source>rowRelativeErrors: W and its dequantized values differ in size</source>
        <translation>rowRelativeErrors：W 与其反量化值的大小不同</translation>
    </message>
    <message>
        <source>tensor &apos;%1&apos;</source>
        <translation>张量“%1”</translation>
    </message>
    <message>
        <source>byte %1</source>
        <translation>字节 %1</translation>
    </message>
    <message>
        <source>static activation scale must be a positive number, got &apos;%1&apos;</source>
        <translation>静态激活缩放必须是正数，实际为“%1”</translation>
    </message>
    <message>
        <source>activation quantization &apos;%1&apos; unknown (int8-token, fp8-token, fp8-tensor, static[:S])</source>
        <translation>未知的激活量化“%1”（int8-token、fp8-token、fp8-tensor、static[:S]）</translation>
    </message>
    <message>
        <source>cannot quantize %1 activations</source>
        <translation>无法量化 %1 激活</translation>
    </message>
    <message>
        <source>awq quantizes per tensor, per output channel or per group along K</source>
        <translation>awq 按张量、按输出通道或沿 K 按组量化</translation>
    </message>
    <message>
        <source>awq computes in FP32 with round(x/s) + z (compressed-tensors)</source>
        <translation>awq 以 FP32 计算 round(x/s) + z（compressed-tensors）</translation>
    </message>
    <message>
        <source>awq n_grid must be 2..1000 (3 or more with duo_scaling on, 4 with both), got %1</source>
        <translation>awq n_grid 必须为 2..1000（duo_scaling 为 on 时至少 3，为 both 时至少 4），实际为 %1</translation>
    </message>
    <message>
        <source>awq: no grid point gave a finite loss (NaN/Inf in the weight or the sample)</source>
        <translation>awq：没有网格点给出有限损失（权重或样本中有 NaN/Inf）</translation>
    </message>
    <message>
        <source>awq: %1 has %2 input features, the capture&apos;s %3 %4</source>
        <translation>awq：%1 有 %2 个输入特征，采集中的 %3 有 %4 个</translation>
    </message>
    <message>
        <source>awq: the capture %1 holds no sample of %2&apos;s input rows, which AWQ&apos;s loss is measured on (capture again with rows &gt; 0)</source>
        <translation>awq：采集 %1 不含 %2 输入行的样本，而 AWQ 的损失正是在其上测量的（请以 rows &gt; 0 重新采集）</translation>
    </message>
    <message>
        <source>awq: %1 holds NaN/Inf (first at element %2); AWQ needs finite weights</source>
        <translation>awq：%1 含有 NaN/Inf（首个在第 %2 个元素）；AWQ 需要有限的权重</translation>
    </message>
    <message>
        <source>awq: %1 lacks its smoothing scales (one per input column)</source>
        <translation>awq：%1 缺少平滑缩放（每个输入列一个）</translation>
    </message>
    <message>
        <source>c must be in [1e-6, 16], got %1</source>
        <translation>c 必须在 [1e-6, 16] 内，实际为 %1</translation>
    </message>
    <message>
        <source>rotate must be 0 or a power of two in 2..65536, got %1</source>
        <translation>rotate 必须为 0 或 2..65536 内的 2 的幂，实际为 %1</translation>
    </message>
    <message>
        <source>the c grid needs 0 &lt; lo &lt; hi and step &gt; 0</source>
        <translation>c 网格需要 0 &lt; lo &lt; hi 且 step &gt; 0</translation>
    </message>
    <message>
        <source>the c grid has more than a million points</source>
        <translation>c 网格超过一百万个点</translation>
    </message>
    <message>
        <source>group size must be ≥ 1</source>
        <translation>组大小必须 ≥ 1</translation>
    </message>
    <message>
        <source>cannot sweep %1 data</source>
        <translation>无法扫描 %1 数据</translation>
    </message>
    <message>
        <source>gguf %1: rows of K = %2 are not a whole number of blocks of %3 (llama.cpp quantizes along K; pick a type with blocks of 32, or another tensor)</source>
        <translation>gguf %1：K = %2 的行不是 %3 个元素的块的整数倍（llama.cpp 沿 K 量化；请选择 32 元素块的类型，或换一个张量）</translation>
    </message>
    <message>
        <source>gguf imatrix needs the module&apos;s inputs and none were paired with %1: capture them first (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass --capture CAP.safetensors</source>
        <translation>gguf imatrix 需要该模块的输入，但没有与 %1 配对的输入：请先采集（quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors）并传入 --capture CAP.safetensors</translation>
    </message>
    <message>
        <source>%1 needs the module&apos;s inputs and none were paired with %2: capture them first (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass --capture CAP.safetensors</source>
        <translation>%1 需要该模块的输入，但没有与 %2 配对的输入：请先采集（quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors）并传入 --capture CAP.safetensors</translation>
    </message>
    <message>
        <source>gguf imatrix: the capture&apos;s %1 has %2 input channels, the weight %3</source>
        <translation>gguf imatrix：采集中的 %1 有 %2 个输入通道，权重有 %3 个</translation>
    </message>
    <message>
        <source>gguf: Ŵ is kept with the result; this one has none</source>
        <translation>gguf：Ŵ 随结果保存；此结果没有</translation>
    </message>
    <message>
        <source>this tensor</source>
        <translation>此张量</translation>
    </message>
    <message>
        <source>gptq quantizes per tensor, per output channel or per group along K, not %1</source>
        <translation>gptq 按张量、按输出通道或沿 K 按组量化，而不是 %1</translation>
    </message>
    <message>
        <source>gptq computes in FP32 with round(x/s) + z (compressed-tensors)</source>
        <translation>gptq 以 FP32 计算 round(x/s) + z（compressed-tensors）</translation>
    </message>
    <message>
        <source>gptq block_size must be 1..1048576, got %1</source>
        <translation>gptq block_size 必须为 1..1048576，实际为 %1</translation>
    </message>
    <message>
        <source>gptq dampening must be a finite fraction ≥ 0</source>
        <translation>gptq dampening 必须是 ≥ 0 的有限比例</translation>
    </message>
    <message>
        <source>gptq target %1 is symmetric: the fp8 format has no zero point</source>
        <translation>gptq 目标 %1 是对称的：fp8 格式没有零点</translation>
    </message>
    <message>
        <source>gptq target %1 is symmetric: compressed-tensors refuses asymmetric FP4</source>
        <translation>gptq 目标 %1 是对称的：compressed-tensors 拒绝非对称 FP4</translation>
    </message>
    <message>
        <source>gptq target %1 has %2-bit codes, not bits %3</source>
        <translation>gptq 目标 %1 的码为 %2 位，而非 bits %3</translation>
    </message>
    <message>
        <source>gptq target %1 takes its scales and rounding from the format (compressed-tensors&apos;); scale_rule, rounding, scale_dtype and eps are the int target&apos;s</source>
        <translation>gptq 目标 %1 的缩放与舍入取自该格式（compressed-tensors 的做法）；scale_rule、rounding、scale_dtype 和 eps 属于 int 目标</translation>
    </message>
    <message>
        <source>gptq target %1 quantizes per tensor or per output channel (the fp8 format has no groups)</source>
        <translation>gptq 目标 %1 按张量或按输出通道量化（fp8 格式没有分组）</translation>
    </message>
    <message>
        <source>gptq target %1 quantizes per group along K, not %2</source>
        <translation>gptq 目标 %1 沿 K 按组量化，而非 %2</translation>
    </message>
    <message>
        <source>gptq target %1 has groups of 32 (compressed-tensors makes E8M0 scales only for group 32), not %2</source>
        <translation>gptq 目标 %1 的分组为 32（compressed-tensors 仅对组大小 32 生成 E8M0 缩放），而非 %2</translation>
    </message>
    <message>
        <source>the capture %1 holds only the diagonal of %2&apos;s input Gram and no row sample: GPTQ needs XᵀX (capture again with a larger gram bound, or with a row sample)</source>
        <translation>采集 %1 只含 %2 输入 Gram 矩阵的对角线而无行样本：GPTQ 需要 XᵀX（请以更大的 gram 上限或带行样本重新采集）</translation>
    </message>
    <message>
        <source>gptq: %1 has %2 input features, the capture&apos;s %3 %4</source>
        <translation>gptq：%1 有 %2 个输入特征，采集中的 %3 有 %4 个</translation>
    </message>
    <message>
        <source>gptq: %1 holds NaN/Inf (first at element %2); GPTQ needs finite weights</source>
        <translation>gptq：%1 含有 NaN/Inf（首个在第 %2 个元素）；GPTQ 需要有限的权重</translation>
    </message>
    <message>
        <source>bits must be 2..8, got %1</source>
        <translation>bits 必须为 2..8，实际为 %1</translation>
    </message>
    <message>
        <source>group size must be ≥ 1, got %1</source>
        <translation>组大小必须 ≥ 1，实际为 %1</translation>
    </message>
    <message>
        <source>hqq-lib needs a group size that is a multiple of 8 (the library asserts it), got %1</source>
        <translation>hqq-lib 需要组大小为 8 的倍数（该库会断言此条件），实际为 %1</translation>
    </message>
    <message>
        <source>HQQ axis must be 0 or 1, got %1</source>
        <translation>HQQ 轴必须为 0 或 1，实际为 %1</translation>
    </message>
    <message>
        <source>iters must be 1..1000, got %1</source>
        <translation>iters 必须为 1..1000，实际为 %1</translation>
    </message>
    <message>
        <source>HQQ needs numel divisible by the group size: numel = %1, group = %2</source>
        <translation>HQQ 要求元素数能被组大小整除：numel = %1，组大小 = %2</translation>
    </message>
    <message>
        <source>HQQ dequantize: codes, scales and zero points do not match the group size</source>
        <translation>HQQ 反量化：码值、缩放和零点与组大小不匹配</translation>
    </message>
    <message>
        <source>passes must be 0..1000, got %1</source>
        <translation>passes 必须为 0..1000，实际为 %1</translation>
    </message>
    <message>
        <source>rank must be ≥ 0, got %1</source>
        <translation>rank 必须 ≥ 0，实际为 %1</translation>
    </message>
    <message>
        <source>compensator_group must be ≥ 1, got %1</source>
        <translation>compensator_group 必须 ≥ 1，实际为 %1</translation>
    </message>
    <message>
        <source>seed must be ≥ 0, got %1</source>
        <translation>seed 必须 ≥ 0，实际为 %1</translation>
    </message>
    <message>
        <source>power_iters must be 0..100, got %1</source>
        <translation>power_iters 必须为 0..100，实际为 %1</translation>
    </message>
    <message>
        <source>MiLo needs a finite tensor (the SVD of the residual is undefined with NaN/Inf)</source>
        <translation>MiLo 需要有限的张量（残差含 NaN/Inf 时其 SVD 无定义）</translation>
    </message>
    <message>
        <source>an NVFP4 result needs its global scale</source>
        <translation>NVFP4 结果需要其全局缩放</translation>
    </message>
    <message>
        <source>a progressive stage must be an &quot;int&quot; or &quot;fp8&quot; spec, got &quot;%1&quot;</source>
        <translation>渐进阶段必须是 &quot;int&quot; 或 &quot;fp8&quot; 规格，实际为 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be a spec object</source>
        <translation>规格字段“%1”必须是规格对象</translation>
    </message>
    <message>
        <source>a spec needs a &quot;method&quot; string (%1)</source>
        <translation>规格需要一个 &quot;method&quot; 字符串（%1）</translation>
    </message>
    <message>
        <source>unknown quantization method &apos;%1&apos; (known: %2)</source>
        <translation>未知的量化方法“%1”（已知：%2）</translation>
    </message>
    <message>
        <source>cannot quantize %1 data</source>
        <translation>无法量化 %1 数据</translation>
    </message>
    <message>
        <source>K = %1 is not divisible by the group size %2 (strict: ragged groups refused)</source>
        <translation>K = %1 不能被组大小 %2 整除（严格模式：拒绝不完整的组）</translation>
    </message>
    <message>
        <source>block size must be ≥ 1</source>
        <translation>块大小必须 ≥ 1</translation>
    </message>
    <message>
        <source>shape %1x%2 is not divisible by the block size %3 (strict: ragged blocks refused)</source>
        <translation>形状 %1×%2 不能被块大小 %3 整除（严格模式：拒绝不完整的块）</translation>
    </message>
    <message>
        <source>block size must be ≥ 1, got %1</source>
        <translation>块大小必须 ≥ 1，实际为 %1</translation>
    </message>
    <message>
        <source>channel axis must be 0 or 1, got %1</source>
        <translation>通道轴必须为 0 或 1，实际为 %1</translation>
    </message>
    <message>
        <source>scale_rule &apos;max&apos; applies to symmetric quantization only</source>
        <translation>scale_rule“max”仅适用于对称量化</translation>
    </message>
    <message>
        <source>FP8 granularity must be tensor, channel or block</source>
        <translation>FP8 粒度必须是 tensor、channel 或 block</translation>
    </message>
    <message>
        <source>a %1 spec must be a JSON object</source>
        <translation>%1 规格必须是 JSON 对象</translation>
    </message>
    <message>
        <source>unknown field &apos;%1&apos; in a %2 spec</source>
        <translation>%2 规格中有未知字段“%1”</translation>
    </message>
    <message>
        <source>spec method is %1, expected &quot;%2&quot;</source>
        <translation>规格方法为 %1，应为 &quot;%2&quot;</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be an integer</source>
        <translation>规格字段“%1”必须是整数</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; is %2, out of range</source>
        <translation>规格字段“%1”为 %2，超出范围</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be true or false</source>
        <translation>规格字段“%1”必须为 true 或 false</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be a number</source>
        <translation>规格字段“%1”必须是数字</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be a string</source>
        <translation>规格字段“%1”必须是字符串</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; is &apos;%2&apos;, expected %3</source>
        <translation>规格字段“%1”为“%2”，应为 %3</translation>
    </message>
    <message>
        <source>group size must be in 1..%1, got %2</source>
        <translation>组大小必须在 1..%1 内，实际为 %2</translation>
    </message>
    <message>
        <source>the CPU backend was handed a tensor of another device</source>
        <translation>CPU 后端收到了另一设备上的张量</translation>
    </message>
    <message>
        <source>all options (the reference implementation)</source>
        <translation>所有选项（参考实现）</translation>
    </message>
    <message>
        <source>--objective must be auto, weight or output, not &apos;%1&apos;</source>
        <translation>--objective 必须是 auto、weight 或 output，而不是“%1”</translation>
    </message>
    <message>
        <source>weight error, as asked</source>
        <translation>权重误差（按要求）</translation>
    </message>
    <message>
        <source>weight error: the scan had no capture</source>
        <translation>权重误差：扫描没有采集</translation>
    </message>
    <message>
        <source>%1 module(s) have runs without an output-aware error (%2): the capture lacks them or the scan had none</source>
        <translation>%1 个模块的运行没有输出感知误差（%2）：采集中缺少它们，或扫描没有采集</translation>
    </message>
    <message>
        <source>--objective output: %1</source>
        <translation>--objective output 不可用：%1</translation>
    </message>
    <message>
        <source>weight error: %1</source>
        <translation>权重误差：%1</translation>
    </message>
    <message>
        <source>the scan&apos;s capture</source>
        <translation>扫描的采集</translation>
    </message>
    <message>
        <source>output-aware error on the capture %1</source>
        <translation>采集 %1 上的输出感知误差</translation>
    </message>
    <message>
        <source>not a scan report (its first line has no &quot;quantscope_scan&quot;)</source>
        <translation>不是扫描报告（其第一行没有 &quot;quantscope_scan&quot;）</translation>
    </message>
    <message>
        <source>a module line lacks &quot;module&quot; or &quot;status&quot;</source>
        <translation>模块行缺少 &quot;module&quot; 或 &quot;status&quot;</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has no shape</source>
        <translation>模块“%1”没有形状</translation>
    </message>
    <message>
        <source>the weights give no weight for module &apos;%1&apos;</source>
        <translation>权重文件未给出模块“%1”的权重</translation>
    </message>
    <message>
        <source>no candidate %1 can store</source>
        <translation>没有 %1 能存储的候选</translation>
    </message>
    <message>
        <source>%1: no run with metrics</source>
        <translation>%1：没有带指标的运行</translation>
    </message>
    <message>
        <source>cannot open the scan report</source>
        <translation>无法打开扫描报告</translation>
    </message>
    <message>
        <source>line %1 is not JSON (a torn line of an unfinished scan? resume the scan first)</source>
        <translation>第 %1 行不是 JSON（未完成扫描的残缺行？请先继续扫描）</translation>
    </message>
    <message>
        <source>the scan report is empty</source>
        <translation>扫描报告为空</translation>
    </message>
    <message>
        <source>cannot open the weights file</source>
        <translation>无法打开权重文件</translation>
    </message>
    <message>
        <source>weights must be an object {&quot;module&quot;: weight}</source>
        <translation>权重必须是对象 {&quot;module&quot;: weight}</translation>
    </message>
    <message>
        <source>the weight of &apos;%1&apos; is not a finite number ≥ 0</source>
        <translation>“%1”的权重不是 ≥ 0 的有限数</translation>
    </message>
    <message>
        <source>a choice needs one candidate per module</source>
        <translation>选择需要每个模块一个候选</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has no candidate %2</source>
        <translation>模块“%1”没有候选 %2</translation>
    </message>
    <message>
        <source>no module has candidates to choose from</source>
        <translation>没有模块有可选的候选</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has no candidates</source>
        <translation>模块“%1”没有候选</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has more than 65535 candidates</source>
        <translation>模块“%1”的候选超过 65535 个</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has a candidate with a non-finite error</source>
        <translation>模块“%1”有一个误差非有限的候选</translation>
    </message>
    <message>
        <source>budget too small: the smallest candidate of every module needs %1 bytes (%2 MB), the budget is %3 bytes (%4 MB)</source>
        <translation>预算太小：每个模块的最小候选共需 %1 字节（%2 MB），预算为 %3 字节（%4 MB）</translation>
    </message>
    <message>
        <source>budget: %1 (every other module)</source>
        <translation>预算：%1（其余所有模块）</translation>
    </message>
    <message>
        <source>%1 must be a positive decimal number, not &apos;%2&apos;</source>
        <translation>%1 必须是正的十进制数，而不是“%2”</translation>
    </message>
    <message>
        <source>%1 has more significant digits than a budget can use: &apos;%2&apos;</source>
        <translation>%1 的有效数字多于预算可用的位数：“%2”</translation>
    </message>
    <message>
        <source>%1 is larger than 2^64 - 1 bytes</source>
        <translation>%1 大于 2^64 - 1 字节</translation>
    </message>
    <message>
        <source>the budget in MB</source>
        <translation>以 MB 计的预算</translation>
    </message>
    <message>
        <source>bits per weight</source>
        <translation>每权重位数</translation>
    </message>
    <message>
        <source>the budget in bits per weight</source>
        <translation>以每权重位数计的预算</translation>
    </message>
    <message>
        <source>the fused modules %1 (%2 members) share no spec with measurements: a serving engine needs one scheme for all of them; scan them with the same specs</source>
        <translation>融合模块 %1（%2 个成员）没有共同的已测规格：推理引擎需要它们全部使用同一方案；请用相同的规格扫描它们</translation>
    </message>
    <message>
        <source>the sweep needs a 2-D weight</source>
        <translation>扫描需要二维权重</translation>
    </message>
    <message>
        <source>no rotated points: %1</source>
        <translation>没有旋转后的点：%1</translation>
    </message>
    <message>
        <source>not a format sweep: %1</source>
        <translation>不是格式扫描：%1</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>compare takes two checkpoints or two scan reports; this one is a checkpoint and the other is not</source>
        <translation>比较需要两个检查点或两个扫描报告；此项是检查点，而另一项不是</translation>
    </message>
    <message>
        <source>compare takes two checkpoints or two scan reports; this one is a scan report and the other is not</source>
        <translation>比较需要两个检查点或两个扫描报告；此项是扫描报告，而另一项不是</translation>
    </message>
    <message>
        <source>the two sides&apos; weights differ in shape: %1 vs %2</source>
        <translation>两侧权重的形状不同：%1 与 %2</translation>
    </message>
    <message>
        <source>the reference has no module of this name</source>
        <translation>参考中没有此名称的模块</translation>
    </message>
    <message>
        <source>the reference&apos;s weight differs in shape: %1</source>
        <translation>参考权重的形状不同：%1</translation>
    </message>
    <message>
        <source>no module of this name</source>
        <translation>没有此名称的模块</translation>
    </message>
    <message>
        <source>line %1 of the scan report is not a JSON object</source>
        <translation>扫描报告第 %1 行不是 JSON 对象</translation>
    </message>
    <message>
        <source>not a scan report (no quantscope_scan header)</source>
        <translation>不是扫描报告（没有 quantscope_scan 头）</translation>
    </message>
    <message>
        <source>line %1 of the scan report names no module</source>
        <translation>扫描报告第 %1 行未指明模块</translation>
    </message>
    <message>
        <source>empty scan report</source>
        <translation>空的扫描报告</translation>
    </message>
    <message>
        <source>not scanned (%1)</source>
        <translation>未扫描（%1）</translation>
    </message>
    <message>
        <source>--reference applies to checkpoints; a scan report carries its errors already</source>
        <translation>--reference 适用于检查点；扫描报告已自带其误差</translation>
    </message>
    <message>
        <source>the reports name different checkpoints: %1 and %2</source>
        <translation>两份报告指向不同的检查点：%1 和 %2</translation>
    </message>
    <message>
        <source>%1 modules were scanned on neither side (excluded or unmatched)</source>
        <translation>%1 个模块两侧都未扫描（已排除或未匹配）</translation>
    </message>
    <message>
        <source>delta error (A - B)</source>
        <translation>误差差值（A - B）</translation>
    </message>
    <message>
        <source>error A</source>
        <translation>误差 A</translation>
    </message>
    <message>
        <source>error B</source>
        <translation>误差 B</translation>
    </message>
    <message>
        <source>codes differing</source>
        <translation>不同的码值</translation>
    </message>
    <message>
        <source>no reference: W is B&apos;s reconstruction</source>
        <translation>无参考：W 为 B 的重建</translation>
    </message>
    <message>
        <source>the sphere codebook needs d ≥ 3, got %1</source>
        <translation>球面码本需要 d ≥ 3，实际为 %1</translation>
    </message>
    <message>
        <source>a codebook has 16 levels</source>
        <translation>码本有 16 个级别</translation>
    </message>
    <message>
        <source>%1 of %2 head %3 holds %4 at token %5: the lab needs finite caches</source>
        <translation>%2 第 %3 个头的 %1 在第 %5 个词元处含有 %4：实验室需要有限的缓存</translation>
    </message>
    <message>
        <source>the queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>K and V must be [heads, tokens, head_dim]; K is %1, V %2</source>
        <translation>K 和 V 必须为 [heads, tokens, head_dim]；K 为 %1，V 为 %2</translation>
    </message>
    <message>
        <source>K %1 and V %2 disagree</source>
        <translation>K %1 与 V %2 不一致</translation>
    </message>
    <message>
        <source>K/V shape %1 has an empty dimension</source>
        <translation>K/V 形状 %1 有空维度</translation>
    </message>
    <message>
        <source>queries %1 must be [heads, queries, %2]</source>
        <translation>查询 %1 必须为 [heads, queries, %2]</translation>
    </message>
    <message>
        <source>query heads (%1) must be a positive multiple of the KV heads (%2)</source>
        <translation>查询头数（%1）必须是 KV 头数（%2）的正整数倍</translation>
    </message>
    <message>
        <source>%1 queries but only %2 keys: query i needs the keys up to position i</source>
        <translation>%1 个查询但只有 %2 个键：查询 i 需要直到位置 i 的键</translation>
    </message>
    <message>
        <source>shape differs from the first layer&apos;s (K/V %1×%2×%3, queries %4×%5)</source>
        <translation>形状与第一层不同（K/V %1×%2×%3，查询 %4×%5）</translation>
    </message>
    <message>
        <source>%1: no K/V cache in the capture; skipped</source>
        <translation>%1：采集中没有 K/V 缓存；已跳过</translation>
    </message>
    <message>
        <source>the capture holds no K/V cache (capture with --kv-tokens &gt; 0)</source>
        <translation>采集中没有 K/V 缓存（请以 --kv-tokens &gt; 0 采集）</translation>
    </message>
    <message>
        <source>no queries in the capture: attention-score and output errors are omitted</source>
        <translation>采集中没有查询：省略注意力分数误差和输出误差</translation>
    </message>
    <message>
        <source>the capture holds pre-RoPE queries: score errors use them as stored</source>
        <translation>采集中是 RoPE 之前的查询：分数误差按存储原样使用它们</translation>
    </message>
    <message>
        <source>metadata `seq` is &apos;%1&apos;: expected a positive integer (tokens per sequence)</source>
        <translation>元数据 `seq` 为“%1”：应为正整数（每个序列的词元数）</translation>
    </message>
    <message>
        <source>no K/V arrays: expected tensors `k` and `v` (or `keys`, `values`) of [layers, heads, tokens, head_dim], or per-layer `&lt;prefix&gt;.k` and `&lt;prefix&gt;.v` [heads, tokens, head_dim]</source>
        <translation>没有 K/V 数组：应有形状为 [layers, heads, tokens, head_dim] 的张量 `k` 和 `v`（或 `keys`、`values`），或每层的 `&lt;prefix&gt;.k` 和 `&lt;prefix&gt;.v` [heads, tokens, head_dim]</translation>
    </message>
    <message>
        <source>no queries in the file: attention-score and output errors are omitted</source>
        <translation>文件中没有查询：省略注意力分数误差和输出误差</translation>
    </message>
    <message>
        <source>%1 is %2: expected [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]</source>
        <translation>%1 为 %2：应为 [layers, heads, tokens, head_dim] 或 [heads, tokens, head_dim]</translation>
    </message>
    <message>
        <source>k, v and q disagree on the number of layers (k %1, v %2%3)</source>
        <translation>k、v 和 q 的层数不一致（k %1，v %2%3）</translation>
    </message>
    <message>
        <source>no layers</source>
        <translation>没有层</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>no queries: attention-score and output errors are omitted</source>
        <translation>没有查询：省略注意力分数误差和输出误差</translation>
    </message>
    <message>
        <source>no K/V arrays: the .npz needs arrays `k` and `v` (or `keys`, `values`), optionally `q` (or `queries`), each [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]</source>
        <translation>没有 K/V 数组：.npz 需要数组 `k` 和 `v`（或 `keys`、`values`），可选 `q`（或 `queries`），每个为 [layers, heads, tokens, head_dim] 或 [heads, tokens, head_dim]</translation>
    </message>
    <message>
        <source>a K/V .npy holds one array [2, layers, heads, tokens, head_dim] (K then V); this one is %1</source>
        <translation>K/V .npy 只含一个数组 [2, layers, heads, tokens, head_dim]（先 K 后 V）；此文件为 %1</translation>
    </message>
    <message>
        <source>not a K/V file: the KV lab reads a capture or a .safetensors, .npz or .npy file</source>
        <translation>不是 K/V 文件：KV 实验室读取采集或 .safetensors、.npz 或 .npy 文件</translation>
    </message>
    <message>
        <source>no layers to study</source>
        <translation>没有可研究的层</translation>
    </message>
    <message>
        <source>head_dim %1 is odd: no Walsh–Hadamard rotation exists for it, so the rotated schemes, the c sweep and the codebooks cannot run</source>
        <translation>head_dim %1 为奇数：不存在对应的 Walsh–Hadamard 旋转，因此旋转方案、c 扫描和码本都无法运行</translation>
    </message>
    <message>
        <source>head_dim %1 is not a power of two: the rotation works in blocks of %2 (the theoretical codebook assumes a rotation over all %3 channels)</source>
        <translation>head_dim %1 不是 2 的幂：旋转按 %2 的块进行（理论码本假定对全部 %3 个通道旋转）</translation>
    </message>
    <message>
        <source>the device failed (%1): the rest computed on the CPU</source>
        <translation>设备出错（%1）：其余部分已在 CPU 上计算</translation>
    </message>
    <message>
        <source>the c grid needs lo &gt; 0 and at least two points</source>
        <translation>c 网格需要 lo &gt; 0 且至少两个点</translation>
    </message>
    <message>
        <source>attention errors use %1 of the %2 captured queries per head, evenly spaced (--score-queries)</source>
        <translation>注意力误差使用每个头 %2 个已采集查询中均匀分布的 %1 个（--score-queries）</translation>
    </message>
    <message>
        <source>KV scheme &apos;%1&apos;: %2 (accepted: bf16, fp8, fp8-head, fp8-vllm, fp8-unit, codebook, codebook-layer, codebook-shared, codebook-norot, constopt[:c=C|c=fit][,unrounded], mxfp4, nvfp4, int4)</source>
        <translation>KV 方案“%1”：%2（可用：bf16、fp8、fp8-head、fp8-vllm、fp8-unit、codebook、codebook-layer、codebook-shared、codebook-norot、constopt[:c=C|c=fit][,unrounded]、mxfp4、nvfp4、int4）</translation>
    </message>
    <message>
        <source>unknown scheme</source>
        <translation>未知方案</translation>
    </message>
    <message>
        <source>only constopt takes options</source>
        <translation>只有 constopt 接受选项</translation>
    </message>
    <message>
        <source>c must be a number in (0, 10), got &apos;%1&apos;</source>
        <translation>c 必须是 (0, 10) 内的数，实际为“%1”</translation>
    </message>
    <message>
        <source>unknown constopt option &apos;%1&apos;</source>
        <translation>未知的 constopt 选项“%1”</translation>
    </message>
    <message>
        <source>head_dim %1 is odd: the %2 scheme needs a Walsh–Hadamard rotation over a power-of-two block</source>
        <translation>head_dim %1 为奇数：%2 方案需要在 2 的幂大小的块上做 Walsh–Hadamard 旋转</translation>
    </message>
    <message>
        <source>the codebook scheme needs 16 levels</source>
        <translation>码本方案需要 16 个级别</translation>
    </message>
    <message>
        <source>unknown GEMM format &apos;%1&apos; (bf16, fp8, fp8-rowwise, int8, w4a16, w4a8-int8, w4a8-fp8, w8a8-fp8, mxfp4, nvfp4 or w3a16-milo)</source>
        <translation>未知的 GEMM 格式“%1”（bf16、fp8、fp8-rowwise、int8、w4a16、w4a8-int8、w4a8-fp8、w8a8-fp8、mxfp4、nvfp4 或 w3a16-milo）</translation>
    </message>
    <message>
        <source>GEMM format &apos;%1&apos; given twice</source>
        <translation>GEMM 格式“%1”重复给出</translation>
    </message>
    <message>
        <source>M sweep: &apos;%1&apos; is not an integer in [1, 1048576]</source>
        <translation>M 扫描：“%1”不是 [1, 1048576] 内的整数</translation>
    </message>
    <message>
        <source>GEMM bench: no format</source>
        <translation>GEMM 测试：没有格式</translation>
    </message>
    <message>
        <source>GEMM bench: empty M sweep</source>
        <translation>GEMM 测试：M 扫描为空</translation>
    </message>
    <message>
        <source>GEMM bench: M must be ≥ 1, got %1</source>
        <translation>GEMM 测试：M 必须 ≥ 1，实际为 %1</translation>
    </message>
    <message>
        <source>GEMM bench: N and K must be in [1, 1048576], got %1×%2</source>
        <translation>GEMM 测试：N 和 K 必须在 [1, 1048576] 内，实际为 %1×%2</translation>
    </message>
    <message>
        <source>GEMM bench: at least 20 repeats, got %1</source>
        <translation>GEMM 测试：至少需要 20 次重复，实际为 %1</translation>
    </message>
    <message>
        <source>GEMM bench: warm-up must be ≥ 0</source>
        <translation>GEMM 测试：预热次数必须 ≥ 0</translation>
    </message>
    <message>
        <source>GEMM bench: experts must be in [1, 1024], got %1</source>
        <translation>GEMM 测试：专家数必须在 [1, 1024] 内，实际为 %1</translation>
    </message>
    <message>
        <source>GEMM bench: the W4 group size must be even and divide K = %1 (0: per channel), got %2</source>
        <translation>GEMM 测试：W4 组大小必须为偶数且能整除 K = %1（0：按通道），实际为 %2</translation>
    </message>
    <message>
        <source>GEMM bench: MoE mode (experts &gt; 1) times bf16 and fp8 only, not %1</source>
        <translation>GEMM 测试：MoE 模式（experts &gt; 1）只测 bf16 和 fp8，不测 %1</translation>
    </message>
    <message>
        <source>GEMM bench: the INT4 paths need an even K (two codes a byte), K = %1</source>
        <translation>GEMM 测试：INT4 路径需要偶数 K（每字节两个码值），K = %1</translation>
    </message>
    <message>
        <source>GEMM bench: %1 needs K a multiple of its block (%2), K = %3</source>
        <translation>GEMM 测试：%1 需要 K 为其块大小（%2）的倍数，K = %3</translation>
    </message>
    <message>
        <source>GEMM bench: w3a16-milo needs K a multiple of 256 and a rank in [0, 256], got K = %1, rank %2</source>
        <translation>GEMM 测试：w3a16-milo 需要 K 为 256 的倍数且秩在 [0, 256] 内，K = %1，秩 %2</translation>
    </message>
    <message>
        <source>GEMM bench on the CPU: %1 experts of %2×%3 need more than 2 GiB of FP32 weights</source>
        <translation>CPU 上的 GEMM 测试：%1 个 %2×%3 的专家需要超过 2 GiB 的 FP32 权重</translation>
    </message>
    <message>
        <source>GEMM bench on the GPU: %1 needs K a multiple of 16, K = %2</source>
        <translation>GPU 上的 GEMM 测试：%1 需要 K 为 16 的倍数，K = %2</translation>
    </message>
    <message>
        <source>Eigen FP32 GEMM standing in for the requested formats</source>
        <translation>以 Eigen FP32 GEMM 代替所请求的格式</translation>
    </message>
    <message>
        <source>%1: GPU only</source>
        <translation>%1：仅限 GPU</translation>
    </message>
    <message>
        <source>MoE: %1 experts, one GEMM each (no batched launch on the CPU)</source>
        <translation>MoE：%1 个专家，各一次 GEMM（CPU 上没有批量启动）</translation>
    </message>
    <message>
        <source>%1 repeats (capped at %2 s)</source>
        <translation>%1 次重复（上限 %2 秒）</translation>
    </message>
    <message>
        <source>CPU GEMM produced a non-finite value</source>
        <translation>CPU GEMM 产生了非有限值</translation>
    </message>
    <message>
        <source>GEMM bench result: bound &apos;%1&apos; is neither memory nor compute</source>
        <translation>GEMM 测试结果：瓶颈“%1”既不是 memory 也不是 compute</translation>
    </message>
    <message>
        <source>GEMM bench result: bf16_paired_us is negative</source>
        <translation>GEMM 测试结果：bf16_paired_us 为负数</translation>
    </message>
    <message>
        <source>GEMM bench result: %1</source>
        <translation>GEMM 测试结果：%1</translation>
    </message>
    <message>
        <source>GEMM peaks: copy_gbps must be positive</source>
        <translation>GEMM 峰值：copy_gbps 必须为正</translation>
    </message>
    <message>
        <source>GEMM peaks: the %1 peak must be positive</source>
        <translation>GEMM 峰值：%1 峰值必须为正</translation>
    </message>
    <message>
        <source>GEMM peaks: %1</source>
        <translation>GEMM 峰值：%1</translation>
    </message>
    <message>
        <source>%1 peak to %2 M=%3</source>
        <translation>%1 峰值提升至 %2 M=%3</translation>
    </message>
    <message>
        <source>copy GB/s to %1 M=%2</source>
        <translation>复制 GB/s 提升至 %1 M=%2</translation>
    </message>
    <message>
        <source>raised to the points that beat the measured ceiling (%1): their operands stay in cache, which the large copy and the peak GEMMs do not</source>
        <translation>已提升至超过实测上限的点（%1）：它们的操作数留在缓存中，而大块复制和峰值 GEMM 不会</translation>
    </message>
    <message>
        <source>above the measured ceiling (operands in cache): the ceiling was raised to it</source>
        <translation>高于实测上限（操作数在缓存中）：上限已提升至该点</translation>
    </message>
    <message>
        <source>cached (%1)</source>
        <translation>已缓存（%1）</translation>
    </message>
    <message>
        <source>GEMM peaks cache: no path (neither XDG_CONFIG_HOME nor HOME is set)</source>
        <translation>GEMM 峰值缓存：没有路径（XDG_CONFIG_HOME 和 HOME 均未设置）</translation>
    </message>
    <message>
        <source>GEMM peaks cache: cannot write %1</source>
        <translation>GEMM 峰值缓存：无法写入 %1</translation>
    </message>
    <message>
        <source>GEMM peaks cache: cannot rename to %1</source>
        <translation>GEMM 峰值缓存：无法重命名为 %1</translation>
    </message>
    <message>
        <source>cpu: %1 threads, Eigen %2</source>
        <translation>CPU：%1 个线程，Eigen %2</translation>
    </message>
    <message>
        <source>CPU copy check failed</source>
        <translation>CPU 复制检查失败</translation>
    </message>
    <message>
        <source>memcpy of 64 MiB (best of 5; read + write bytes); FP32 Eigen GEMM best of 1024³, 2048³</source>
        <translation>64 MiB 的 memcpy（5 次取最佳；读 + 写字节）；FP32 Eigen GEMM 取 1024³、2048³ 中的最佳</translation>
    </message>
    <message>
        <source>GEMM peaks: memory level %1 needs a positive GB/s</source>
        <translation>GEMM 峰值：存储层级 %1 的 GB/s 必须为正</translation>
    </message>
    <message>
        <source>cache-resident (%1): X, W and Y (%2 KiB) fit in %3; its ceiling %4 GB/s</source>
        <translation>缓存驻留（%1）：X、W 和 Y（%2 KiB）可放入 %3；其上限 %4 GB/s</translation>
    </message>
    <message>
        <source>%1 GB/s to %2 M=%3</source>
        <translation>%1 GB/s 提升至 %2 M=%3</translation>
    </message>
    <message>
        <source>CPU bandwidth check failed</source>
        <translation>CPU 带宽检查失败</translation>
    </message>
    <message>
        <source>per memory level the better of a memcpy (read + write bytes) and a read at a working set of %1 (best of 5 trials, DRAM of 10; one thread); FP32 Eigen GEMM best of 256³, 512³, 1024³, 2048³</source>
        <translation>每个存储层级取 memcpy（读 + 写字节）与读取中的较优者，工作集为 %1（5 次取最佳，DRAM 为 10 次；单线程）；FP32 Eigen GEMM 取 256³、512³、1024³、2048³ 中的最佳</translation>
    </message>
    <message>
        <source>activation K = %1 (shape %2) does not match the weight&apos;s K = %3 (shape %4)</source>
        <translation>激活的 K = %1（形状 %2）与权重的 K = %3（形状 %4）不匹配</translation>
    </message>
    <message>
        <source>the quantized weight does not match the weight&apos;s shape</source>
        <translation>量化权重与权重的形状不匹配</translation>
    </message>
    <message>
        <source>cannot decode %1 activations</source>
        <translation>无法解码 %1 激活</translation>
    </message>
    <message>
        <source>a two-stage weight with an asymmetric first stage has no low-precision GEMM path</source>
        <translation>第一阶段非对称的两阶段权重没有低精度 GEMM 路径</translation>
    </message>
    <message>
        <source>W·A8-int8 needs integer weight codes (method int, or progressive with an int stage 2); got %1</source>
        <translation>W·A8-int8 需要整数权重码值（方法 int，或第 2 阶段为 int 的 progressive）；实际为 %1</translation>
    </message>
    <message>
        <source>method %1 has no FP8 GEMM path</source>
        <translation>方法 %1 没有 FP8 GEMM 路径</translation>
    </message>
    <message>
        <source>E5M2 weights have no FP8 E4M3 GEMM path</source>
        <translation>E5M2 权重没有 FP8 E4M3 GEMM 路径</translation>
    </message>
    <message>
        <source>INT%1 weight codes are not exact in E4M3 (use int8-token activations)</source>
        <translation>INT%1 权重码值在 E4M3 中不精确（请使用 int8-token 激活）</translation>
    </message>
    <message>
        <source>%1: activations quantized on the CPU</source>
        <translation>%1：激活已在 CPU 上量化</translation>
    </message>
    <message>
        <source>%1: the GEMM computed on the CPU</source>
        <translation>%1：GEMM 已在 CPU 上计算</translation>
    </message>
    <message>
        <source>the weight&apos;s scale runs differ between rows</source>
        <translation>权重的缩放段在各行之间不同</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>MoE scale health, %1 layers × %2 experts (per layer, one mark per expert: &apos;.&apos; healthy, &apos;X&apos; NaN/Inf/zero scales, &apos;?&apos; no scale, &apos;-&apos; absent), %3 bad: %4</source>
        <translation>MoE 缩放健康状况，%1 层 × %2 个专家（每层每个专家一个标记：“.”正常，“X”缩放为 NaN/Inf/零，“?”无缩放，“-”缺失），%3 个异常：%4</translation>
    </message>
    <message>
        <source>layer %1, expert %2: %3 of %4 scales are NaN, Inf or zero (first in %5)</source>
        <translation>第 %1 层，专家 %2：%4 个缩放中有 %3 个为 NaN、Inf 或零（首个在 %5 中）</translation>
    </message>
    <message>
        <source>a llama2.c checkpoint: dim %1, %2 layers, %3 heads, vocabulary %4</source>
        <translation>llama2.c 检查点：dim %1，%2 层，%3 个头，词表 %4</translation>
    </message>
    <message>
        <source>convert it to a Hugging Face safetensors checkpoint (llama2.c&apos;s export.py --version -1 writes one; or load it in Python and save it with safetensors.torch.save_file)</source>
        <translation>请将其转换为 Hugging Face safetensors 检查点（llama2.c 的 export.py --version -1 可写出；或在 Python 中加载后用 safetensors.torch.save_file 保存）</translation>
    </message>
    <message>
        <source>a GGUF file (llama.cpp)</source>
        <translation>GGUF 文件（llama.cpp）</translation>
    </message>
    <message>
        <source>Quantscope reads GGUF v2 and v3 itself: `quantscope-cli doctor FILE` says where this one breaks</source>
        <translation>Quantscope 可直接读取 GGUF v2 和 v3：`quantscope-cli doctor FILE` 会指出此文件的问题所在</translation>
    </message>
    <message>
        <source>a llama2.c checkpoint (export.py version 1 or 2)</source>
        <translation>llama2.c 检查点（export.py 版本 1 或 2）</translation>
    </message>
    <message>
        <source>convert it to a Hugging Face safetensors checkpoint (llama2.c&apos;s export.py --version -1 writes one)</source>
        <translation>请将其转换为 Hugging Face safetensors 检查点（llama2.c 的 export.py --version -1 可写出）</translation>
    </message>
    <message>
        <source>a PyTorch checkpoint (torch.save, ZIP format)</source>
        <translation>PyTorch 检查点（torch.save，ZIP 格式）</translation>
    </message>
    <message>
        <source>convert it to safetensors: safetensors.torch.save_file(torch.load(path), &quot;model.safetensors&quot;)</source>
        <translation>请将其转换为 safetensors：safetensors.torch.save_file(torch.load(path), &quot;model.safetensors&quot;)</translation>
    </message>
    <message>
        <source>a ZIP of .npy arrays (a NumPy .npz archive)</source>
        <translation>由 .npy 数组组成的 ZIP（NumPy .npz 归档）</translation>
    </message>
    <message>
        <source>rename it to .npz and open it again</source>
        <translation>请将其重命名为 .npz 后重新打开</translation>
    </message>
    <message>
        <source>a ZIP archive</source>
        <translation>ZIP 归档</translation>
    </message>
    <message>
        <source>unpack it and open the .safetensors file or checkpoint folder inside</source>
        <translation>请解压后打开其中的 .safetensors 文件或检查点文件夹</translation>
    </message>
    <message>
        <source>a Python pickle (PyTorch&apos;s legacy torch.save format, pickle protocol %1)</source>
        <translation>Python pickle（PyTorch 旧版 torch.save 格式，pickle 协议 %1）</translation>
    </message>
    <message>
        <source>shape entry %1 is negative</source>
        <translation>shape 条目 %1 为负数</translation>
    </message>
    <message>
        <source>data_offsets entry %1 is negative</source>
        <translation>data_offsets 条目 %1 为负数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>%1 entry %2 is not an integer that fits in 64 bits</source>
        <translation>%1 条目 %2 不是可放入 64 位的整数</translation>
    </message>
    <message>
        <source>unknown dtype &quot;%1&quot;: not one of the 22 safetensors dtypes</source>
        <translation>未知 dtype“%1”：不属于 22 种 safetensors dtype</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>binary data</source>
        <translation>二进制数据</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>duplicate key &quot;__metadata__&quot; in the header</source>
        <translation>头部中有重复的键“__metadata__”</translation>
    </message>
    <message>
        <source>duplicate key in the header: tensor names must be unique</source>
        <translation>头部中有重复的键：张量名称必须唯一</translation>
    </message>
    <message>
        <source>duplicate key &quot;%1&quot; in __metadata__</source>
        <translation>__metadata__ 中有重复的键“%1”</translation>
    </message>
    <message>
        <source>unknown key &quot;%1&quot; in the tensor&apos;s entry (an entry has exactly &quot;dtype&quot;, &quot;shape&quot; and &quot;data_offsets&quot;)</source>
        <translation>张量条目中有未知的键“%1”（条目恰好包含“dtype”“shape”和“data_offsets”）</translation>
    </message>
    <message>
        <source>duplicate key &quot;%1&quot; in the tensor&apos;s entry</source>
        <translation>张量条目中有重复的键“%1”</translation>
    </message>
    <message>
        <source>the tensor&apos;s entry has no &quot;%1&quot;</source>
        <translation>张量条目中没有“%1”</translation>
    </message>
    <message>
        <source>an array</source>
        <translation>数组</translation>
    </message>
    <message>
        <source>data_offsets has %1 entries; it must be [BEGIN, END]</source>
        <translation>data_offsets 有 %1 个条目；必须为 [BEGIN, END]</translation>
    </message>
    <message>
        <source>the header is not valid JSON: %1</source>
        <translation>头部不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>shape entry %1 does not fit in a signed 64-bit integer</source>
        <translation>shape 条目 %1 超出有符号 64 位整数范围</translation>
    </message>
    <message>
        <source>data_offsets has more than two entries; it must be [BEGIN, END]</source>
        <translation>data_offsets 多于两个条目；必须为 [BEGIN, END]</translation>
    </message>
    <message>
        <source>the header must be a JSON object, not %1</source>
        <translation>头部必须是 JSON 对象，而不是%1</translation>
    </message>
    <message>
        <source>__metadata__ must be an object of string to string, not %1</source>
        <translation>__metadata__ 必须是字符串到字符串的对象，而不是%1</translation>
    </message>
    <message>
        <source>a tensor&apos;s entry must be a JSON object, not %1</source>
        <translation>张量条目必须是 JSON 对象，而不是%1</translation>
    </message>
    <message>
        <source>__metadata__ value of key &quot;%1&quot; is %2; metadata values must be strings</source>
        <translation>__metadata__ 中键“%1”的值为%2；元数据值必须是字符串</translation>
    </message>
    <message>
        <source>&quot;dtype&quot; must be a string, not %1</source>
        <translation>“dtype”必须是字符串，而不是%1</translation>
    </message>
    <message>
        <source>&quot;shape&quot; must be an array of non-negative integers, not %1</source>
        <translation>“shape”必须是非负整数数组，而不是%1</translation>
    </message>
    <message>
        <source>&quot;data_offsets&quot; must be an array of two non-negative integers, not %1</source>
        <translation>“data_offsets”必须是两个非负整数组成的数组，而不是%1</translation>
    </message>
    <message>
        <source>shape entries must be non-negative integers, not %1</source>
        <translation>shape 条目必须是非负整数，而不是%1</translation>
    </message>
    <message>
        <source>data_offsets entries must be non-negative integers, not %1</source>
        <translation>data_offsets 条目必须是非负整数，而不是%1</translation>
    </message>
    <message>
        <source>unexpected %1</source>
        <translation>意外的%1</translation>
    </message>
    <message>
        <source>the file is empty; a safetensors file starts with an 8-byte little-endian header length</source>
        <translation>文件为空；safetensors 文件以 8 字节小端头部长度开头</translation>
    </message>
    <message>
        <source>the file is %1 bytes, shorter than the 8-byte header length every safetensors file starts with</source>
        <translation>文件只有 %1 字节，短于每个 safetensors 文件开头的 8 字节头部长度</translation>
    </message>
    <message>
        <source>the header length field says %1 bytes, more than the limit of %2 bytes</source>
        <translation>头部长度字段为 %1 字节，超过 %2 字节的上限</translation>
    </message>
    <message>
        <source>the header length field says %1 bytes, but only %2 bytes follow it in the file</source>
        <translation>头部长度字段为 %1 字节，但文件中其后只有 %2 字节</translation>
    </message>
    <message>
        <source>the header is not valid UTF-8 (byte %1)</source>
        <translation>头部不是有效的 UTF-8（字节 %1）</translation>
    </message>
    <message>
        <source>the header is empty; it must be a JSON object starting with &apos;{&apos;</source>
        <translation>头部为空；它必须是以“{”开头的 JSON 对象</translation>
    </message>
    <message>
        <source>the header must be a JSON object starting with &apos;{&apos;, but its first non-space byte is &apos;%1&apos; (%2)</source>
        <translation>头部必须是以“{”开头的 JSON 对象，但其第一个非空白字节为“%1”（%2）</translation>
    </message>
    <message>
        <source>the header&apos;s JSON is nested deeper than %1 levels (a valid header needs 3)</source>
        <translation>头部 JSON 的嵌套超过 %1 层（有效头部只需 3 层）</translation>
    </message>
    <message>
        <source>the header is not valid JSON</source>
        <translation>头部不是有效的 JSON</translation>
    </message>
    <message>
        <source>data_offsets %1 are reversed: END is before BEGIN</source>
        <translation>data_offsets %1 顺序颠倒：END 在 BEGIN 之前</translation>
    </message>
    <message>
        <source>the element count of shape %1 overflows 64 bits</source>
        <translation>形状 %1 的元素数超出 64 位</translation>
    </message>
    <message>
        <source>the size in bits of %1 elements of %2 overflows 64 bits</source>
        <translation>%1 个 %2 元素的位数超出 64 位</translation>
    </message>
    <message>
        <source>misaligned sub-byte span: %1 elements of %2 (%3 bits each) are %4 bits, not a whole number of bytes</source>
        <translation>未对齐的亚字节区间：%1 个 %2 元素（每个 %3 位）共 %4 位，不是整数个字节</translation>
    </message>
    <message>
        <source>data_offsets %1 span %2 bytes, but %3 elements of %4 with shape %5 need %6</source>
        <translation>data_offsets %1 跨 %2 字节，但形状为 %5 的 %3 个 %4 元素需要 %6 字节</translation>
    </message>
    <message>
        <source>data_offsets %1 reach past the end of the data, which is %2 bytes (file of %3 bytes, data from byte %4); the file is truncated or the offsets are wrong</source>
        <translation>data_offsets %1 超出数据末尾，数据长 %2 字节（文件 %3 字节，数据从字节 %4 开始）；文件被截断或偏移量有误</translation>
    </message>
    <message>
        <source>data_offsets %1 overlap tensor &apos;%2&apos; (data_offsets %3)</source>
        <translation>data_offsets %1 与张量“%2”（data_offsets %3）重叠</translation>
    </message>
    <message>
        <source>gap of %1 bytes before this tensor: data bytes [%2, %3) belong to no tensor (previous tensor &apos;%4&apos; ends at %5)</source>
        <translation>此张量之前有 %1 字节的空隙：数据字节 [%2, %3) 不属于任何张量（上一个张量“%4”结束于 %5）</translation>
    </message>
    <message>
        <source>gap of %1 bytes before this tensor: data bytes [%2, %3) belong to no tensor (the first tensor must start at 0)</source>
        <translation>此张量之前有 %1 字节的空隙：数据字节 [%2, %3) 不属于任何张量（第一个张量必须从 0 开始）</translation>
    </message>
    <message>
        <source>%1; spans must follow each other without holes (open in lenient mode to accept)</source>
        <translation>%1；各区间必须首尾相接、没有空洞（以宽松模式打开可接受）</translation>
    </message>
    <message>
        <source>%1 trailing bytes after the last tensor (tensor data ends at byte %2, the file at %3)</source>
        <translation>最后一个张量之后有 %1 个多余字节（张量数据结束于字节 %2，文件结束于 %3）</translation>
    </message>
    <message>
        <source>%1; the data must end where the last tensor ends (open in lenient mode to accept)</source>
        <translation>%1；数据必须在最后一个张量结束处结束（以宽松模式打开可接受）</translation>
    </message>
    <message>
        <source>no such tensor in the file</source>
        <translation>文件中没有此张量</translation>
    </message>
    <message>
        <source>the tensor&apos;s span lies outside this file</source>
        <translation>张量的区间位于此文件之外</translation>
    </message>
    <message>
        <source>a tensor name is empty</source>
        <translation>有张量名称为空</translation>
    </message>
    <message>
        <source>&quot;__metadata__&quot; is reserved and cannot name a tensor</source>
        <translation>“__metadata__”为保留名，不能用作张量名</translation>
    </message>
    <message>
        <source>the tensor name is not valid UTF-8</source>
        <translation>张量名称不是有效的 UTF-8</translation>
    </message>
    <message>
        <source>the tensor name occurs twice; names must be unique</source>
        <translation>张量名称出现两次；名称必须唯一</translation>
    </message>
    <message>
        <source>dtype %1 has no safetensors equivalent</source>
        <translation>dtype %1 在 safetensors 中没有对应类型</translation>
    </message>
    <message>
        <source>the tensor has no data</source>
        <translation>张量没有数据</translation>
    </message>
    <message>
        <source>the tensor&apos;s size in bits overflows 64 bits</source>
        <translation>张量的位数超出 64 位</translation>
    </message>
    <message>
        <source>misaligned sub-byte span: %1 elements of %2 are not a whole number of bytes</source>
        <translation>未对齐的亚字节区间：%1 个 %2 元素不是整数个字节</translation>
    </message>
    <message>
        <source>a strided view of a sub-byte dtype cannot be written</source>
        <translation>无法写出亚字节 dtype 的跨步视图</translation>
    </message>
    <message>
        <source>__metadata__ entry &quot;%1&quot; is not valid UTF-8</source>
        <translation>__metadata__ 条目“%1”不是有效的 UTF-8</translation>
    </message>
    <message>
        <source>cannot open the file</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <source>cannot stat the file</source>
        <translation>无法获取文件信息（stat）</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>the file is too large to map on this system</source>
        <translation>文件过大，无法在此系统上映射</translation>
    </message>
    <message>
        <source>cannot map the file</source>
        <translation>无法映射文件（mmap）</translation>
    </message>
    <message>
        <source>not a file path</source>
        <translation>不是文件路径</translation>
    </message>
    <message>
        <source>cannot create a temporary file in folder &apos;%1&apos;</source>
        <translation>无法在文件夹“%1”中创建临时文件</translation>
    </message>
    <message>
        <source>write after commit</source>
        <translation>提交后仍在写入</translation>
    </message>
    <message>
        <source>cannot write temporary file &apos;%1&apos;</source>
        <translation>无法写入临时文件“%1”</translation>
    </message>
    <message>
        <source>cannot write temporary file &apos;%1&apos;: no progress</source>
        <translation>无法写入临时文件“%1”：没有进展</translation>
    </message>
    <message>
        <source>commit of a file that failed earlier</source>
        <translation>提交了先前已失败的文件</translation>
    </message>
    <message>
        <source>cannot flush temporary file &apos;%1&apos;</source>
        <translation>无法将临时文件“%1”刷写到磁盘</translation>
    </message>
    <message>
        <source>cannot close temporary file &apos;%1&apos;</source>
        <translation>无法关闭临时文件“%1”</translation>
    </message>
    <message>
        <source>cannot rename &apos;%1&apos; over the target</source>
        <translation>无法将“%1”重命名覆盖目标</translation>
    </message>
    <message>
        <source>cannot flush folder &apos;%1&apos;</source>
        <translation>无法将文件夹“%1”刷写到磁盘</translation>
    </message>
    <message>
        <source>cannot read the file</source>
        <translation>无法读取文件</translation>
    </message>
    <message>
        <source>%1 (config.json ignored)</source>
        <translation>%1（已忽略 config.json）</translation>
    </message>
    <message>
        <source>the index must be a JSON object with a &quot;weight_map&quot;</source>
        <translation>索引必须是带有“weight_map”的 JSON 对象</translation>
    </message>
    <message>
        <source>the index has no &quot;weight_map&quot;</source>
        <translation>索引没有“weight_map”</translation>
    </message>
    <message>
        <source>&quot;weight_map&quot; must be an object of tensor name to shard file name</source>
        <translation>“weight_map”必须是张量名到分片文件名的对象</translation>
    </message>
    <message>
        <source>the shard of the tensor must be a file name (a string)</source>
        <translation>张量的分片必须是文件名（字符串）</translation>
    </message>
    <message>
        <source>shard &quot;%1&quot; is not a plain file name in the index&apos;s folder; shards outside the folder are refused</source>
        <translation>分片“%1”不是索引所在文件夹中的普通文件名；拒绝该文件夹之外的分片</translation>
    </message>
    <message>
        <source>shard &quot;%1&quot; listed in %2 does not exist</source>
        <translation>%2 中列出的分片“%1”不存在</translation>
    </message>
    <message>
        <source>the tensor is in two shards: &quot;%1&quot; and &quot;%2&quot;</source>
        <translation>张量位于两个分片中：“%1”和“%2”</translation>
    </message>
    <message>
        <source>the index places the tensor in shard &quot;%1&quot;, which does not contain it</source>
        <translation>索引将张量放在分片“%1”中，但该分片不包含它</translation>
    </message>
    <message>
        <source>the tensor is in the shard but not in %1; it is ignored</source>
        <translation>张量在分片中但不在 %1 中；已忽略</translation>
    </message>
    <message>
        <source>cannot list the folder: %1</source>
        <translation>无法列出文件夹内容：%1</translation>
    </message>
    <message>
        <source>the folder holds no .safetensors file and no %1</source>
        <translation>文件夹中没有 .safetensors 文件，也没有 %1</translation>
    </message>
    <message>
        <source>the folder holds %1 .safetensors files and no %2, so which one to open is ambiguous: %3 (open one of them directly)</source>
        <translation>文件夹中有 %1 个 .safetensors 文件且没有 %2，无法确定打开哪一个：%3（请直接打开其中一个）</translation>
    </message>
    <message>
        <source>sharded index</source>
        <translation>分片索引</translation>
    </message>
    <message>
        <source>safetensors folder</source>
        <translation>safetensors 文件夹</translation>
    </message>
    <message>
        <source>safetensors file</source>
        <translation>safetensors 文件</translation>
    </message>
    <message>
        <source>no such file or folder</source>
        <translation>没有此文件或文件夹</translation>
    </message>
    <message>
        <source>no reader opens this path</source>
        <translation>没有读取器能打开此路径</translation>
    </message>
    <message>
        <source>no such tensor in the checkpoint</source>
        <translation>检查点中没有此张量</translation>
    </message>
    <message>
        <source>the header is not a Python dict (it must start with &apos;{&apos;)</source>
        <translation>头部不是 Python dict（必须以“{”开头）</translation>
    </message>
    <message>
        <source>unexpected text after the header dict</source>
        <translation>头部 dict 之后有意外的文本</translation>
    </message>
    <message>
        <source>the header nests too deeply</source>
        <translation>头部嵌套过深</translation>
    </message>
    <message>
        <source>the header dict ends early</source>
        <translation>头部 dict 提前结束</translation>
    </message>
    <message>
        <source>unexpected character &apos;%1&apos; in the header dict</source>
        <translation>头部 dict 中有意外字符“%1”</translation>
    </message>
    <message>
        <source>a header dict key is not a string</source>
        <translation>头部 dict 的某个键不是字符串</translation>
    </message>
    <message>
        <source>expected &apos;:&apos; after a key in the header dict</source>
        <translation>头部 dict 中键之后应为“:”</translation>
    </message>
    <message>
        <source>duplicate key &apos;%1&apos; in the header dict</source>
        <translation>头部 dict 中有重复的键“%1”</translation>
    </message>
    <message>
        <source>expected &apos;,&apos; or &apos;}&apos; in the header dict</source>
        <translation>头部 dict 中应为“,”或“}”</translation>
    </message>
    <message>
        <source>expected &apos;,&apos; or &apos;%1&apos; in a sequence</source>
        <translation>序列中应为“,”或“%1”</translation>
    </message>
    <message>
        <source>unterminated string in the header dict</source>
        <translation>头部 dict 中有未结束的字符串</translation>
    </message>
    <message>
        <source>malformed integer in the header dict</source>
        <translation>头部 dict 中有格式错误的整数</translation>
    </message>
    <message>
        <source>integer in the header dict overflows 64 bits</source>
        <translation>头部 dict 中的整数超出 64 位</translation>
    </message>
    <message>
        <source>unsupported dtype descr &apos;%1&apos;</source>
        <translation>不支持的 dtype descr“%1”</translation>
    </message>
    <message>
        <source>object arrays (pickled Python objects, descr &apos;%1&apos;) are refused</source>
        <translation>拒绝对象数组（pickle 的 Python 对象，descr“%1”）</translation>
    </message>
    <message>
        <source>complex arrays (descr &apos;%1&apos;) are refused</source>
        <translation>拒绝复数数组（descr“%1”）</translation>
    </message>
    <message>
        <source>unicode string arrays (descr &apos;%1&apos;) are refused</source>
        <translation>拒绝 Unicode 字符串数组（descr“%1”）</translation>
    </message>
    <message>
        <source>byte string arrays (descr &apos;%1&apos;) are refused</source>
        <translation>拒绝字节串数组（descr“%1”）</translation>
    </message>
    <message>
        <source>void/structured arrays (descr &apos;%1&apos;) are refused</source>
        <translation>拒绝 void/结构化数组（descr“%1”）</translation>
    </message>
    <message>
        <source>datetime/timedelta arrays (descr &apos;%1&apos;) are refused</source>
        <translation>拒绝 datetime/timedelta 数组（descr“%1”）</translation>
    </message>
    <message>
        <source>not a .npy array: the magic string \x93NUMPY is missing</source>
        <translation>不是 .npy 数组：缺少魔数字符串 \x93NUMPY</translation>
    </message>
    <message>
        <source>unsupported .npy format version %1.%2 (1.0, 2.0 and 3.0 are read)</source>
        <translation>不支持的 .npy 格式版本 %1.%2（可读取 1.0、2.0 和 3.0）</translation>
    </message>
    <message>
        <source>the header length field is cut off by the end of the data</source>
        <translation>头部长度字段被数据末尾截断</translation>
    </message>
    <message>
        <source>the header length %1 runs past the end of the data (%2 bytes follow the length field)</source>
        <translation>头部长度 %1 超出数据末尾（长度字段之后只有 %2 字节）</translation>
    </message>
    <message>
        <source>non-ASCII byte in a version %1.0 header (only 3.0 headers are UTF-8)</source>
        <translation>版本 %1.0 的头部中有非 ASCII 字节（只有 3.0 头部为 UTF-8）</translation>
    </message>
    <message>
        <source>unexpected key &apos;%1&apos; in the header dict (exactly descr, fortran_order and shape are allowed)</source>
        <translation>头部 dict 中有意外的键“%1”（只允许 descr、fortran_order 和 shape）</translation>
    </message>
    <message>
        <source>the header dict lacks the key &apos;%1&apos;</source>
        <translation>头部 dict 缺少键“%1”</translation>
    </message>
    <message>
        <source>structured arrays (a list of fields as descr) are refused</source>
        <translation>拒绝结构化数组（以字段列表作为 descr）</translation>
    </message>
    <message>
        <source>&apos;descr&apos; must be a dtype string</source>
        <translation>“descr”必须是 dtype 字符串</translation>
    </message>
    <message>
        <source>&apos;fortran_order&apos; must be True or False</source>
        <translation>“fortran_order”必须为 True 或 False</translation>
    </message>
    <message>
        <source>&apos;shape&apos; must be a tuple of integers</source>
        <translation>“shape”必须是整数元组</translation>
    </message>
    <message>
        <source>&apos;shape&apos; must be a tuple of non-negative integers</source>
        <translation>“shape”必须是非负整数元组</translation>
    </message>
    <message>
        <source>the array&apos;s byte size overflows 64 bits</source>
        <translation>数组的字节大小超出 64 位</translation>
    </message>
    <message>
        <source>the data is shorter than the header says: shape %1 of &apos;%2&apos; needs %3 bytes, %4 are present</source>
        <translation>数据短于头部所述：形状 %1 的“%2”需要 %3 字节，实际只有 %4 字节</translation>
    </message>
    <message>
        <source>%1 trailing bytes after the array data (shape %2 of &apos;%3&apos; ends at byte %4)</source>
        <translation>数组数据之后有 %1 个多余字节（形状 %2 的“%3”结束于字节 %4）</translation>
    </message>
    <message>
        <source>%1; --lenient accepts them</source>
        <translation>%1；--lenient 可接受它们</translation>
    </message>
    <message>
        <source>%1 (ignored)</source>
        <translation>%1（已忽略）</translation>
    </message>
    <message>
        <source>not a safetensors / npy / npz file (this looks like %1): %2</source>
        <translation>不是 safetensors / npy / npz 文件（它看起来是%1）：%2</translation>
    </message>
    <message>
        <source>capture metadata lacks &apos;%1&apos;</source>
        <translation>采集元数据缺少“%1”</translation>
    </message>
    <message>
        <source>capture metadata &apos;%1&apos; must be a positive integer, not &apos;%2&apos;</source>
        <translation>采集元数据“%1”必须是正整数，而不是“%2”</translation>
    </message>
    <message>
        <source>capture metadata &apos;%1&apos; must be a JSON object</source>
        <translation>采集元数据“%1”必须是 JSON 对象</translation>
    </message>
    <message>
        <source>capture metadata &apos;%1&apos; is not JSON: %2</source>
        <translation>采集元数据“%1”不是 JSON：%2</translation>
    </message>
    <message>
        <source>capture entry &apos;%1&apos;: &apos;%2&apos; must be a %3 integer</source>
        <translation>采集条目“%1”：“%2”必须是 %3 整数</translation>
    </message>
    <message>
        <source>capture lacks this statistics tensor</source>
        <translation>采集缺少此统计张量</translation>
    </message>
    <message>
        <source>capture statistics must be F32, not %1</source>
        <translation>采集统计必须为 F32，而不是 %1</translation>
    </message>
    <message>
        <source>capture tensor has shape %1, expected %2</source>
        <translation>采集张量的形状为 %1，应为 %2</translation>
    </message>
    <message>
        <source>not a Quantscope capture: its safetensors metadata has no &quot;format&quot;: &quot;quantscope-capture&quot; (write one with `quantscope-cli capture`)</source>
        <translation>不是 Quantscope 采集：其 safetensors 元数据中没有 &quot;format&quot;: &quot;quantscope-capture&quot;（请用 `quantscope-cli capture` 写出）</translation>
    </message>
    <message>
        <source>capture version &apos;%1&apos; is not supported (this build reads version 1)</source>
        <translation>不支持采集版本“%1”（此版本只读取版本 1）</translation>
    </message>
    <message>
        <source>capture metadata &apos;modules&apos; lists no module</source>
        <translation>采集元数据“modules”中没有列出任何模块</translation>
    </message>
    <message>
        <source>capture entry &apos;%1&apos; must be a JSON object</source>
        <translation>采集条目“%1”必须是 JSON 对象</translation>
    </message>
    <message>
        <source>capture modules sharing statistics &apos;%1&apos; disagree on in_features (%2 vs %3)</source>
        <translation>共享统计“%1”的采集模块的 in_features 不一致（%2 对 %3）</translation>
    </message>
    <message>
        <source>capture attention entry &apos;%1&apos; must be a JSON object</source>
        <translation>采集注意力条目“%1”必须是 JSON 对象</translation>
    </message>
    <message>
        <source>capture attention entry &apos;%1&apos;: rope must be &quot;post&quot; or &quot;pre&quot;</source>
        <translation>采集注意力条目“%1”：rope 必须为 &quot;post&quot; 或 &quot;pre&quot;</translation>
    </message>
    <message>
        <source>the capture has no statistics for module &apos;%1&apos;</source>
        <translation>采集中没有模块“%1”的统计</translation>
    </message>
    <message>
        <source>the capture has no attention block &apos;%1&apos;</source>
        <translation>采集中没有注意力块“%1”</translation>
    </message>
    <message>
        <source>%1: the checkpoint&apos;s weight is %2, the capture saw %3x%4 (out x in)</source>
        <translation>%1：检查点的权重为 %2，而采集看到的是 %3×%4（输出 × 输入）</translation>
    </message>
    <message>
        <source>the capture has no statistics for module &apos;%1&apos; (was it captured from another model?)</source>
        <translation>采集中没有模块“%1”的统计（是否采集自另一个模型？）</translation>
    </message>
    <message>
        <source>module &apos;%1&apos;: the weight is %2 but the capture saw %3x%4 (out x in)</source>
        <translation>模块“%1”：权重为 %2，但采集看到的是 %3×%4（输出 × 输入）</translation>
    </message>
    <message>
        <source>the file ends inside %1: %2 bytes needed at offset %3, %4 left (truncated?)</source>
        <translation>文件在%1内部结束：在偏移 %3 处需要 %2 字节，只剩 %4 字节（被截断？）</translation>
    </message>
    <message>
        <source>%1: the string&apos;s length field says %2 bytes, but only %3 bytes follow in the file</source>
        <translation>%1：字符串长度字段为 %2 字节，但文件中其后只有 %3 字节</translation>
    </message>
    <message>
        <source>%1: a BOOL must be 0 or 1, not %2</source>
        <translation>%1：BOOL 必须为 0 或 1，而不是 %2</translation>
    </message>
    <message>
        <source>the file is %1 bytes, shorter than the 4-byte GGUF magic</source>
        <translation>文件只有 %1 字节，短于 4 字节的 GGUF 魔数</translation>
    </message>
    <message>
        <source>the magic</source>
        <translation>魔数</translation>
    </message>
    <message>
        <source>bad magic: a GGUF file starts with the bytes &quot;GGUF&quot;</source>
        <translation>魔数错误：GGUF 文件以字节“GGUF”开头</translation>
    </message>
    <message>
        <source>the version</source>
        <translation>版本号</translation>
    </message>
    <message>
        <source>GGUF version 1 (32-bit counts, before August 2023) is not read; convert the file with a current llama.cpp</source>
        <translation>不读取 GGUF 版本 1（32 位计数，2023 年 8 月之前）；请用当前的 llama.cpp 转换此文件</translation>
    </message>
    <message>
        <source>unknown GGUF version %1 (versions 2 and 3 are read)</source>
        <translation>未知的 GGUF 版本 %1（可读取版本 2 和 3）</translation>
    </message>
    <message>
        <source>the tensor count</source>
        <translation>张量数</translation>
    </message>
    <message>
        <source>the metadata count</source>
        <translation>元数据数</translation>
    </message>
    <message>
        <source>the tensor count %1 cannot fit in a file of %2 bytes (each tensor info takes at least 24 bytes)</source>
        <translation>张量数 %1 无法容纳于 %2 字节的文件中（每条张量信息至少占 24 字节）</translation>
    </message>
    <message>
        <source>the metadata count %1 cannot fit in a file of %2 bytes (each key-value takes at least 12 bytes)</source>
        <translation>元数据数 %1 无法容纳于 %2 字节的文件中（每个键值对至少占 12 字节）</translation>
    </message>
    <message>
        <source>a metadata key</source>
        <translation>元数据键</translation>
    </message>
    <message>
        <source>metadata key %1 is empty</source>
        <translation>元数据键 %1 为空</translation>
    </message>
    <message>
        <source>duplicate metadata key &quot;%1&quot;</source>
        <translation>重复的元数据键“%1”</translation>
    </message>
    <message>
        <source>a metadata value type</source>
        <translation>元数据值类型</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot; has unknown value type %2</source>
        <translation>元数据键“%1”的值类型 %2 未知</translation>
    </message>
    <message>
        <source>an array&apos;s element type</source>
        <translation>数组元素类型</translation>
    </message>
    <message>
        <source>an array&apos;s length</source>
        <translation>数组长度</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot;: array element type %2 (nested arrays are not read)</source>
        <translation>元数据键“%1”：数组元素类型 %2（不读取嵌套数组）</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot;: array element type %2 is unknown</source>
        <translation>元数据键“%1”：数组元素类型 %2 未知</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot;: an array of %2 %3 cannot fit in the %4 bytes left in the file</source>
        <translation>元数据键“%1”：%2 个 %3 组成的数组无法容纳于文件剩余的 %4 字节</translation>
    </message>
    <message>
        <source>an array element</source>
        <translation>数组元素</translation>
    </message>
    <message>
        <source>a metadata value</source>
        <translation>元数据值</translation>
    </message>
    <message>
        <source>general.alignment must be a UINT32, not %1</source>
        <translation>general.alignment 必须为 UINT32，而不是 %1</translation>
    </message>
    <message>
        <source>general.alignment %1 is not a power of two</source>
        <translation>general.alignment %1 不是 2 的幂</translation>
    </message>
    <message>
        <source>a tensor name</source>
        <translation>张量名称</translation>
    </message>
    <message>
        <source>tensor %1 has an empty name</source>
        <translation>张量 %1 的名称为空</translation>
    </message>
    <message>
        <source>the tensor name is %1 bytes; ggml allows at most 63 (GGML_MAX_NAME − 1)</source>
        <translation>张量名称有 %1 字节；ggml 最多允许 63 字节（GGML_MAX_NAME − 1）</translation>
    </message>
    <message>
        <source>duplicate tensor name</source>
        <translation>重复的张量名称</translation>
    </message>
    <message>
        <source>a tensor&apos;s dimension count</source>
        <translation>张量的维数</translation>
    </message>
    <message>
        <source>the tensor has %1 dimensions; ggml allows at most %2</source>
        <translation>张量有 %1 维；ggml 最多允许 %2 维</translation>
    </message>
    <message>
        <source>a tensor&apos;s dimensions</source>
        <translation>张量的各维</translation>
    </message>
    <message>
        <source>dimension %1 is %2, more than a signed 64-bit integer holds</source>
        <translation>第 %1 维为 %2，超出有符号 64 位整数范围</translation>
    </message>
    <message>
        <source>the element count of dimensions %1 overflows 63 bits</source>
        <translation>各维 %1 的元素数超出 63 位</translation>
    </message>
    <message>
        <source>a tensor&apos;s type</source>
        <translation>张量类型</translation>
    </message>
    <message>
        <source>unknown ggml type %1</source>
        <translation>未知的 ggml 类型 %1</translation>
    </message>
    <message>
        <source>the innermost dimension %1 is not a multiple of %2&apos;s block size %3</source>
        <translation>最内层维度 %1 不是 %2 块大小 %3 的倍数</translation>
    </message>
    <message>
        <source>the size in bytes of %1 %2 overflows 64 bits</source>
        <translation>%1 个 %2 的字节大小超出 64 位</translation>
    </message>
    <message>
        <source>a tensor&apos;s data offset</source>
        <translation>张量的数据偏移</translation>
    </message>
    <message>
        <source>the data offset %1 is not a multiple of the alignment %2</source>
        <translation>数据偏移 %1 不是对齐值 %2 的倍数</translation>
    </message>
    <message>
        <source>the file ends before the data section (at offset %1)</source>
        <translation>文件在数据段之前结束（偏移 %1 处）</translation>
    </message>
    <message>
        <source>the tensor&apos;s data [%1, %2 + %3) lies beyond the end of the file (the data section holds %4 bytes)</source>
        <translation>张量数据 [%1, %2 + %3) 超出文件末尾（数据段共 %4 字节）</translation>
    </message>
    <message>
        <source>the tensor&apos;s data overlaps that of &quot;%1&quot;</source>
        <translation>张量数据与“%1”的数据重叠</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot; lies outside the file</source>
        <translation>元数据键“%1”位于文件之外</translation>
    </message>
    <message>
        <source>the ggml type %1 is not decoded to FP32 (not in gguf.quants.dequantize)</source>
        <translation>ggml 类型 %1 不解码为 FP32（不在 gguf.quants.dequantize 中）</translation>
    </message>
    <message>
        <source>zlib cannot start inflating</source>
        <translation>zlib 无法开始解压</translation>
    </message>
    <message>
        <source>the deflate stream is corrupt (zlib: %1)</source>
        <translation>deflate 流已损坏（zlib：%1）</translation>
    </message>
    <message>
        <source>not a ZIP archive: %1 bytes cannot hold an end-of-central-directory record</source>
        <translation>不是 ZIP 归档：%1 字节无法容纳中央目录结束记录</translation>
    </message>
    <message>
        <source>not a ZIP archive: no end-of-central-directory record (signature PK\5\6) in the last 64 KiB</source>
        <translation>不是 ZIP 归档：最后 64 KiB 中没有中央目录结束记录（签名 PK\5\6）</translation>
    </message>
    <message>
        <source>multi-disk ZIP archives are not supported</source>
        <translation>不支持多卷 ZIP 归档</translation>
    </message>
    <message>
        <source>the ZIP64 end record offset %1 does not leave room for the record before its locator</source>
        <translation>ZIP64 结束记录偏移 %1 在其定位符之前没有容纳该记录的空间</translation>
    </message>
    <message>
        <source>bad signature of the ZIP64 end-of-central-directory record</source>
        <translation>ZIP64 中央目录结束记录的签名错误</translation>
    </message>
    <message>
        <source>the central directory (offset %1, %2 bytes) runs past the ZIP64 end record</source>
        <translation>中央目录（偏移 %1，%2 字节）超出 ZIP64 结束记录</translation>
    </message>
    <message>
        <source>the central directory (offset %1, %2 bytes) runs past the end record at byte %3 (truncated archive?)</source>
        <translation>中央目录（偏移 %1，%2 字节）超出位于字节 %3 的结束记录（归档被截断？）</translation>
    </message>
    <message>
        <source>the central directory is cut off: entry %1 of %2 does not fit</source>
        <translation>中央目录被截断：第 %1 个条目（共 %2 个）放不下</translation>
    </message>
    <message>
        <source>bad signature of central directory entry %1</source>
        <translation>中央目录条目 %1 的签名错误</translation>
    </message>
    <message>
        <source>the central directory is cut off inside entry %1</source>
        <translation>中央目录在条目 %1 内部被截断</translation>
    </message>
    <message>
        <source>an extra field runs past its entry</source>
        <translation>扩展字段超出其条目</translation>
    </message>
    <message>
        <source>the ZIP64 extra field is too short for the saturated sizes</source>
        <translation>ZIP64 扩展字段太短，容纳不下已饱和的大小</translation>
    </message>
    <message>
        <source>encrypted members are not supported</source>
        <translation>不支持加密的成员</translation>
    </message>
    <message>
        <source>unsupported compression %1 (stored and deflate are read)</source>
        <translation>不支持的压缩方式 %1（可读取 stored 和 deflate）</translation>
    </message>
    <message>
        <source>the local header offset %1 lies past the end of the file</source>
        <translation>本地头偏移 %1 超出文件末尾</translation>
    </message>
    <message>
        <source>bad signature of the local header</source>
        <translation>本地头的签名错误</translation>
    </message>
    <message>
        <source>the local header runs past the end of the file</source>
        <translation>本地头超出文件末尾</translation>
    </message>
    <message>
        <source>the local header names a different member than the central directory</source>
        <translation>本地头所指的成员与中央目录不同</translation>
    </message>
    <message>
        <source>the local header&apos;s compression method differs from the central directory&apos;s</source>
        <translation>本地头的压缩方式与中央目录不同</translation>
    </message>
    <message>
        <source>the compressed size %1 runs past the end of the file (%2 bytes follow)</source>
        <translation>压缩大小 %1 超出文件末尾（其后只有 %2 字节）</translation>
    </message>
    <message>
        <source>a stored member&apos;s compressed size %1 differs from its size %2</source>
        <translation>未压缩成员的压缩大小 %1 与其大小 %2 不同</translation>
    </message>
    <message>
        <source>the data descriptor is cut off by the end of the file</source>
        <translation>数据描述符被文件末尾截断</translation>
    </message>
    <message>
        <source>the data descriptor&apos;s CRC-32 differs from the central directory&apos;s</source>
        <translation>数据描述符的 CRC-32 与中央目录不同</translation>
    </message>
    <message>
        <source>the member states %1 bytes from %2 compressed ones, more than deflate&apos;s largest ratio (1032:1)</source>
        <translation>该成员声称由 %2 个压缩字节得到 %1 字节，超过 deflate 的最大压缩比（1032:1）</translation>
    </message>
    <message>
        <source>the member inflates past its stated size of %1 bytes</source>
        <translation>该成员解压后超出其声明的 %1 字节</translation>
    </message>
    <message>
        <source>the deflate stream ends before its end marker (truncated member)</source>
        <translation>deflate 流在结束标记之前结束（成员被截断）</translation>
    </message>
    <message>
        <source>the member inflates to %1 bytes, the directory says %2</source>
        <translation>该成员解压为 %1 字节，而目录记载为 %2</translation>
    </message>
    <message>
        <source>CRC-32 mismatch: computed %1, stored %2</source>
        <translation>CRC-32 不匹配：计算值 %1，存储值 %2</translation>
    </message>
    <message>
        <source>member is not an .npy array; ignored</source>
        <translation>该成员不是 .npy 数组；已忽略</translation>
    </message>
    <message>
        <source>the member&apos;s data is shorter than its header says: shape %1 of &apos;%2&apos; needs %3 bytes after the header, the member holds %4</source>
        <translation>成员数据短于其头部所述：形状 %1 的“%2”在头部之后需要 %3 字节，成员只有 %4 字节</translation>
    </message>
    <message>
        <source>%1 trailing bytes after the array data inside the member</source>
        <translation>成员内数组数据之后有 %1 个多余字节</translation>
    </message>
    <message>
        <source>two members hold the array &apos;%1&apos;</source>
        <translation>两个成员都包含数组“%1”</translation>
    </message>
    <message>
        <source>the central directory holds %1 bytes after its last entry (ignored)</source>
        <translation>中央目录在最后一个条目之后还有 %1 字节（已忽略）</translation>
    </message>
    <message>
        <source>no array of this name in the archive</source>
        <translation>归档中没有此名称的数组</translation>
    </message>
    <message>
        <source>inflating array &apos;%1&apos;</source>
        <translation>正在解压数组“%1”</translation>
    </message>
    <message>
        <source>the member inflates past its stated size</source>
        <translation>该成员解压后超出其声明的大小</translation>
    </message>
    <message>
        <source>the member changed since the archive was opened (size or CRC-32)</source>
        <translation>自打开归档以来该成员已更改（大小或 CRC-32）</translation>
    </message>
    <message>
        <source>gguf: imatrix applies to the K-quants (q2_k … q6_k) and i-quants; %1 has no importance-weighted search</source>
        <translation>gguf：imatrix 适用于 K-quant（q2_k … q6_k）和 i-quant；%1 没有按重要性加权的搜索</translation>
    </message>
    <message>
        <source>gguf: the type %1 is not quantized here (one of q4_0 q4_1 q5_0 q5_1 q8_0 q2_k … q6_k iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq4_nl iq4_xs tq1_0 tq2_0 mxfp4)</source>
        <translation>gguf：此处不量化类型 %1（可选 q4_0 q4_1 q5_0 q5_1 q8_0 q2_k … q6_k iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq4_nl iq4_xs tq1_0 tq2_0 mxfp4）</translation>
    </message>
    <message>
        <source>gguf: %1 needs an importance matrix, as llama.cpp&apos;s llama-quantize does (&quot;this quantization requires an imatrix&quot;): set imatrix (--imatrix) and pair a capture (--capture)</source>
        <translation>gguf：%1 需要重要性矩阵，与 llama.cpp 的 llama-quantize 相同（&quot;this quantization requires an imatrix&quot;）：请设置 imatrix（--imatrix）并配对一个采集（--capture）</translation>
    </message>
    <message>
        <source>sweep format &apos;%1&apos; needs an importance matrix (llama.cpp refuses it without one) and the sweep has no capture; try iq3_s, iq4_nl, iq4_xs, or quantize --method gguf --type %2 --imatrix --capture CAP.safetensors</source>
        <translation>扫描格式“%1”需要重要性矩阵（llama.cpp 没有它会拒绝），而本次扫描没有采集；请尝试 iq3_s、iq4_nl、iq4_xs，或 quantize --method gguf --type %2 --imatrix --capture CAP.safetensors</translation>
    </message>
    <message>
        <source>unknown sweep format &apos;%1&apos; (int2…int8, hqq2…hqq8, fp8, mxfp4, nvfp4, constopt, q4_0 q4_1 q5_0 q5_1 q8_0 q2_k…q6_k tq1_0 tq2_0 iq3_s iq4_nl iq4_xs; mxfp4 is the OCP one)</source>
        <translation>未知的扫描格式“%1”（int2…int8、hqq2…hqq8、fp8、mxfp4、nvfp4、constopt、q4_0 q4_1 q5_0 q5_1 q8_0 q2_k…q6_k tq1_0 tq2_0 iq3_s iq4_nl iq4_xs；mxfp4 为 OCP 版本）</translation>
    </message>
    <message>
        <source>importance weights (imatrix) for the unrotated K-quant points only: they weight the original input channels</source>
        <translation>重要性权重（imatrix）仅用于未旋转的 K-quant 点：它们加权的是原始输入通道</translation>
    </message>
    <message>
        <source>quantizing to the ggml type %1 is not implemented</source>
        <translation>未实现量化为 ggml 类型 %1</translation>
    </message>
    <message>
        <source>quantizing to the ggml type %1 is not implemented (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4 are)</source>
        <translation>未实现量化为 ggml 类型 %1（已实现的有 q4_0、q4_1、q5_0、q5_1、q8_0、q2_k … q6_k、iq1_s、iq1_m、iq2_xxs、iq2_xs、iq2_s、iq3_xxs、iq3_s、iq4_nl、iq4_xs、tq1_0、tq2_0、mxfp4）</translation>
    </message>
    <message>
        <source>rows of %1 values are not a whole number of %2 blocks of %3 (ggml quantizes along rows; pick a type with smaller blocks)</source>
        <translation>%1 个值的行不是整数个 %2 块（每块 %3）（ggml 沿行量化；请选择块更小的类型）</translation>
    </message>
    <message>
        <source>importance weights are used by the K-quants (q2_k … q6_k) and i-quants only, not by %1</source>
        <translation>只有 K-quant（q2_k … q6_k）和 i-quant 使用重要性权重，%1 不使用</translation>
    </message>
    <message>
        <source>%1 needs an importance matrix: llama.cpp&apos;s llama-quantize refuses it without one (&quot;this quantization requires an imatrix&quot;); give importance weights (an imatrix)</source>
        <translation>%1 需要重要性矩阵：llama.cpp 的 llama-quantize 没有它会拒绝（&quot;this quantization requires an imatrix&quot;）；请提供重要性权重（imatrix）</translation>
    </message>
    <message>
        <source>the ggml type %1 does not decode to FP32</source>
        <translation>ggml 类型 %1 无法解码为 FP32</translation>
    </message>
    <message>
        <source>cannot open: %1</source>
        <translation>无法打开：%1</translation>
    </message>
    <message>
        <source>file ends inside the tensor</source>
        <translation>文件在张量内部结束</translation>
    </message>
    <message>
        <source>spectra must be off, counts or top-k, got &apos;%1&apos;</source>
        <translation>spectra 必须为 off、counts 或 top-k，实际为“%1”</translation>
    </message>
    <message>
        <source>tensor &apos;%1&apos; is stored as %2: integer codes, not weights; not scanned</source>
        <translation>张量“%1”以 %2 存储：是整数码值而非权重；未扫描</translation>
    </message>
    <message>
        <source>cannot open the report: %1</source>
        <translation>无法打开报告：%1</translation>
    </message>
    <message>
        <source>cannot read the report: %1</source>
        <translation>无法读取报告：%1</translation>
    </message>
    <message>
        <source>not a scan report (its first line is not JSON); remove it or choose another --out</source>
        <translation>不是扫描报告（其第一行不是 JSON）；请删除它或另选 --out</translation>
    </message>
    <message>
        <source>not a scan report (no &quot;quantscope_scan&quot; header); remove it or choose another --out</source>
        <translation>不是扫描报告（没有“quantscope_scan”头部）；请删除它或另选 --out</translation>
    </message>
    <message>
        <source>a report of another scan (its &quot;%1&quot; differs); remove it or choose another --out to start afresh</source>
        <translation>另一次扫描的报告（其“%1”不同）；请删除它或另选 --out 以重新开始</translation>
    </message>
    <message>
        <source>cannot truncate the report: %1</source>
        <translation>无法截断报告：%1</translation>
    </message>
    <message>
        <source>cannot write the report: %1</source>
        <translation>无法写入报告：%1</translation>
    </message>
    <message>
        <source>cannot fsync the report: %1</source>
        <translation>无法将报告同步到磁盘（fsync）：%1</translation>
    </message>
    <message>
        <source>scan: module index %1 out of range</source>
        <translation>扫描：模块索引 %1 超出范围</translation>
    </message>
    <message>
        <source>scan: commit before open</source>
        <translation>扫描：在打开之前提交</translation>
    </message>
    <message>
        <source>the quantscope_bridge package was not found: set QUANTSCOPE_BRIDGE_DIR to the folder holding it (the source tree&apos;s python/)</source>
        <translation>未找到 quantscope_bridge 包：请将 QUANTSCOPE_BRIDGE_DIR 设为包含它的文件夹（源码树中的 python/）</translation>
    </message>
    <message>
        <source>cannot start the Python interpreter &apos;%1&apos; (%2): install Python 3 or set QUANTSCOPE_PYTHON to one</source>
        <translation>无法启动 Python 解释器“%1”（%2）：请安装 Python 3 或将 QUANTSCOPE_PYTHON 设为某个解释器</translation>
    </message>
    <message>
        <source>the interpreter &apos;%1&apos; cannot import quantscope_bridge from %2</source>
        <translation>解释器“%1”无法从 %2 导入 quantscope_bridge</translation>
    </message>
    <message>
        <source>the bridge (%1) exited with status %2 without a result</source>
        <translation>桥接（%1）以状态 %2 退出，没有结果</translation>
    </message>
    <message>
        <source>the bridge (%1) exited with status %2 without a result; its last output:%3</source>
        <translation>桥接（%1）以状态 %2 退出，没有结果；其最后输出：%3</translation>
    </message>
    <message>
        <source>cannot create a temporary folder</source>
        <translation>无法创建临时文件夹</translation>
    </message>
    <message>
        <source>give the calibration data as --text FILE or --tokens FILE.npy (one of them)</source>
        <translation>请以 --text FILE 或 --tokens FILE.npy 给出校准数据（二选一）</translation>
    </message>
    <message>
        <source>capture needs --out CAP.safetensors</source>
        <translation>capture 需要 --out CAP.safetensors</translation>
    </message>
    <message>
        <source>the bridge wrote a capture this build cannot read (removed): %1</source>
        <translation>桥接写出了此版本无法读取的采集（已删除）：%1</translation>
    </message>
    <message>
        <source>eval needs --recipe R.json or --checkpoint EXPORTED (one of them)</source>
        <translation>eval 需要 --recipe R.json 或 --checkpoint EXPORTED（二选一）</translation>
    </message>
    <message>
        <source>reading the model&apos;s weights through transformers</source>
        <translation>正在通过 transformers 读取模型权重</translation>
    </message>
    <message>
        <source>the eval report has no &quot;modules&quot; array</source>
        <translation>评估报告没有“modules”数组</translation>
    </message>
    <message>
        <source>%1: kept dense by default — %2</source>
        <translation>%1：默认保持稠密——%2</translation>
    </message>
    <message>
        <source>%1: %2 gives %3 specs (candidates a scan compares); eval needs the one chosen</source>
        <translation>%1：%2 给出 %3 个规格（扫描比较的候选）；eval 需要已选定的那一个</translation>
    </message>
    <message>
        <source>the recipe quantizes no module of %1 (after the default exclusions): nothing to evaluate</source>
        <translation>配方未量化 %1 的任何模块（在默认排除之后）：没有可评估的内容</translation>
    </message>
    <message>
        <source>quantizing %1</source>
        <translation>正在量化 %1</translation>
    </message>
    <message>
        <source>writing %1</source>
        <translation>正在写入 %1</translation>
    </message>
    <message>
        <source>%1 holds no quantized module that Quantscope decodes (compressed-tensors, Quark, FP8 block, native): pass the original model with --recipe instead</source>
        <translation>%1 不含 Quantscope 能解码的量化模块（compressed-tensors、Quark、FP8 block、原生）：请改为传入原始模型并使用 --recipe</translation>
    </message>
    <message>
        <source>decoding %1</source>
        <translation>正在解码 %1</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; is stored as %2 (stacked experts): eval replaces 2-D Linear weights</source>
        <translation>模块“%1”以 %2 存储（堆叠的专家）：eval 只替换二维 Linear 权重</translation>
    </message>
    <message>
        <source>not a 2-D weight (%1-D): no Linear layer to quantize</source>
        <translation>不是二维权重（%1 维）：没有可量化的 Linear 层</translation>
    </message>
    <message>
        <source>an embedding: the toolkits quantize Linear layers, and vLLM keeps embeddings dense</source>
        <translation>嵌入层：各工具包量化的是 Linear 层，vLLM 保持嵌入层稠密</translation>
    </message>
    <message>
        <source>the output head: llm-compressor, Quark and vLLM users keep lm_head dense by default</source>
        <translation>输出头：llm-compressor、Quark 和 vLLM 的用户默认保持 lm_head 稠密</translation>
    </message>
    <message>
        <source>a MoE router: serving engines keep routers dense (their logits choose the experts)</source>
        <translation>MoE 路由器：推理引擎保持路由器稠密（其 logits 选择专家）</translation>
    </message>
    <message>
        <source>a norm: not a Linear layer</source>
        <translation>归一化层：不是 Linear 层</translation>
    </message>
    <message>
        <source>recipe %1: %2</source>
        <translation>配方 %1：%2</translation>
    </message>
    <message>
        <source>recipe (top): %1</source>
        <translation>配方（顶层）：%1</translation>
    </message>
    <message>
        <source>missing &quot;%1&quot;</source>
        <translation>缺少“%1”</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>必须是对象</translation>
    </message>
    <message>
        <source>unknown key (known: %1)</source>
        <translation>未知的键（已知：%1）</translation>
    </message>
    <message>
        <source>must be a string</source>
        <translation>必须是字符串</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a dialect (fnmatch, re, exact)</source>
        <translation>“%1”不是方言（fnmatch、re、exact）</translation>
    </message>
    <message>
        <source>empty pattern</source>
        <translation>空模式</translation>
    </message>
    <message>
        <source>regex &apos;%1&apos; does not compile: %2</source>
        <translation>正则表达式“%1”无法编译：%2</translation>
    </message>
    <message>
        <source>regex &apos;%1&apos;: %2 at offset %3 is not in the supported subset (std::regex ECMAScript; see the recipe section of the formats documentation)</source>
        <translation>正则表达式“%1”：偏移 %3 处的%2不在支持的子集内（std::regex ECMAScript；见格式文档的配方一节）</translation>
    </message>
    <message>
        <source>an escape with more than 3 digits</source>
        <translation>超过 3 位数字的转义</translation>
    </message>
    <message>
        <source>a repetition count above 1000</source>
        <translation>超过 1000 的重复次数</translation>
    </message>
    <message>
        <source>a &apos;]&apos; first in a class</source>
        <translation>字符类开头的“]”</translation>
    </message>
    <message>
        <source>a named group</source>
        <translation>命名分组</translation>
    </message>
    <message>
        <source>an atomic group</source>
        <translation>原子分组</translation>
    </message>
    <message>
        <source>an inline flag or extension &apos;(?%1&apos;</source>
        <translation>内联标志或扩展“(?%1”</translation>
    </message>
    <message>
        <source>a possessive quantifier</source>
        <translation>占有量词</translation>
    </message>
    <message>
        <source>must be a KV scheme name (a string)</source>
        <translation>必须是 KV 方案名（字符串）</translation>
    </message>
    <message>
        <source>must be an integer in [%1, 100000], got %2</source>
        <translation>必须是 [%1, 100000] 内的整数，实际为 %2</translation>
    </message>
    <message>
        <source>needs kv_cache.layers (the model&apos;s attention layers) to know which are last</source>
        <translation>需要 kv_cache.layers（模型的注意力层数）才能知道哪些是最后几层</translation>
    </message>
    <message>
        <source>must be an array</source>
        <translation>必须是数组</translation>
    </message>
    <message>
        <source>must be [first, last]</source>
        <translation>必须为 [first, last]</translation>
    </message>
    <message>
        <source>last (%1) is before first (%2)</source>
        <translation>last（%1）在 first（%2）之前</translation>
    </message>
    <message>
        <source>layer %1 is beyond kv_cache.layers (%2)</source>
        <translation>第 %1 层超出 kv_cache.layers（%2）</translation>
    </message>
    <message>
        <source>must be %1, got %2</source>
        <translation>必须为 %1，实际为 %2</translation>
    </message>
    <message>
        <source>must be a non-empty array of strings</source>
        <translation>必须是非空字符串数组</translation>
    </message>
    <message>
        <source>must be a non-empty array of spec objects</source>
        <translation>必须是非空的规格对象数组</translation>
    </message>
    <message>
        <source>must be a spec object with &quot;method&quot;</source>
        <translation>必须是带有“method”的规格对象</translation>
    </message>
    <message>
        <source>must be an object: module name → {bits, rank, c}</source>
        <translation>必须是对象：模块名 → {bits, rank, c}</translation>
    </message>
    <message>
        <source>must be an integer</source>
        <translation>必须是整数</translation>
    </message>
    <message>
        <source>no spec of this rule has &quot;bits&quot;</source>
        <translation>此规则没有任何规格含“bits”</translation>
    </message>
    <message>
        <source>no spec of this rule has &quot;rank&quot;</source>
        <translation>此规则没有任何规格含“rank”</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation>必须是数字</translation>
    </message>
    <message>
        <source>no spec of this rule has &quot;c&quot;</source>
        <translation>此规则没有任何规格含“c”</translation>
    </message>
    <message>
        <source>sets nothing (bits, rank or c)</source>
        <translation>未设置任何项（bits、rank 或 c）</translation>
    </message>
    <message>
        <source>makes specs[%1] invalid: %2</source>
        <translation>使 specs[%1] 无效：%2</translation>
    </message>
    <message>
        <source>cannot open the recipe</source>
        <translation>无法打开配方</translation>
    </message>
    <message>
        <source>cannot write the recipe</source>
        <translation>无法写入配方</translation>
    </message>
    <message>
        <source>writing the recipe failed</source>
        <translation>写入配方失败</translation>
    </message>
    <message>
        <source>cannot rename the recipe into place</source>
        <translation>无法将配方重命名到目标位置</translation>
    </message>
    <message>
        <source>excluded by exclude[%1] %2 &apos;%3&apos;</source>
        <translation>被 exclude[%1] %2“%3”排除</translation>
    </message>
    <message>
        <source>%1 (rule %2 would have matched)</source>
        <translation>%1（规则 %2 本会匹配）</translation>
    </message>
    <message>
        <source>no rule matches</source>
        <translation>没有匹配的规则</translation>
    </message>
    <message>
        <source>rule %1 pattern %2 &apos;%3&apos; (first matching rule)</source>
        <translation>规则 %1 的模式 %2“%3”（第一条匹配的规则）</translation>
    </message>
    <message>
        <source>rule %1 &apos;%2&apos; pattern %3 &apos;%4&apos; (first matching rule)</source>
        <translation>规则 %1“%2”的模式 %3“%4”（第一条匹配的规则）</translation>
    </message>
    <message>
        <source>%1, with its override</source>
        <translation>%1，连同其覆盖设置</translation>
    </message>
    <message>
        <source>excluded</source>
        <translation>已排除</translation>
    </message>
    <message>
        <source>not quantized</source>
        <translation>未量化</translation>
    </message>
    <message>
        <source>fused at inference but resolved to unequal specs: %1 (%2) vs %3</source>
        <translation>推理时融合，但解析为不同的规格：%1（%2）对 %3</translation>
    </message>
    <message>
        <source>unescaped &apos;.&apos; matches any character (write &apos;\.&apos; for a dot)</source>
        <translation>未转义的“.”匹配任意字符（点号请写作“\.”）</translation>
    </message>
    <message>
        <source>unescaped &apos;.&apos; matches any character, e.g. &apos;%1&apos; (write &apos;\.&apos; for a dot)</source>
        <translation>未转义的“.”匹配任意字符，例如“%1”（点号请写作“\.”）</translation>
    </message>
    <message>
        <source>NumPy arrays (%1), not a safetensors checkpoint: read whole, nothing wrong with them</source>
        <translation>NumPy 数组（%1），不是 safetensors 检查点：已完整读取，没有问题</translation>
    </message>
    <message>
        <source>a NumPy file of a kind Quantscope does not read: %1</source>
        <translation>Quantscope 不读取此类 NumPy 文件：%1</translation>
    </message>
    <message>
        <source>a corrupt NumPy file: %1</source>
        <translation>损坏的 NumPy 文件：%1</translation>
    </message>
    <message>
        <source>%1 decoded values are NaN or Inf</source>
        <translation>%1 个解码值为 NaN 或 Inf</translation>
    </message>
    <message>
        <source>GGUF v%1 (%2, %3 tensors), not a safetensors checkpoint: read and decoded, nothing wrong with it</source>
        <translation>GGUF v%1（%2，%3 个张量），不是 safetensors 检查点：已读取并解码，没有问题</translation>
    </message>
    <message>
        <source>no architecture</source>
        <translation>无架构</translation>
    </message>
    <message>
        <source>a corrupt GGUF file: %1</source>
        <translation>损坏的 GGUF 文件：%1</translation>
    </message>
    <message>
        <source>config.json declares static input scales but %1 has no input_scale (%2): engines have no activation scale for it</source>
        <translation>config.json 声明了静态输入缩放，但 %1 没有 input_scale（%2）：推理引擎没有它的激活缩放</translation>
    </message>
    <message>
        <source>config.json declares a quantized KV cache but %1 has no %2_scale: engines fall back to 1.0 for this layer</source>
        <translation>config.json 声明了量化 KV 缓存，但 %1 没有 %2_scale：推理引擎对此层回退为 1.0</translation>
    </message>
    <message>
        <source>config.json quantizes %1 (%2, not in its ignore/exclude list) but its weight is stored dense (%3): loaders expect the quantized tensors; add it to the ignore list or quantize it</source>
        <translation>config.json 量化 %1（%2，不在其 ignore/exclude 列表中），但其权重以稠密形式存储（%3）：加载器期望量化张量；请将其加入 ignore 列表或对其量化</translation>
    </message>
    <message>
        <source>the scheme declares %1-bit weights (%2) but %3 stores %4 bits of codes per weight (%5 with its scales): %6 codes, larger than declared</source>
        <translation>方案声明为 %1 位权重（%2），但 %3 每个权重存储 %4 位码值（含缩放为 %5）：%6 码值，大于声明值</translation>
    </message>
    <message>
        <source>the scheme declares %1-bit weights (%2) but %3 stores only %4 bits of codes per weight: the codes cannot hold them</source>
        <translation>方案声明为 %1 位权重（%2），但 %3 每个权重只存储 %4 位码值：码值容纳不下</translation>
    </message>
    <message>
        <source>%1: K = %2 columns is not divisible by group_size %3 (compressed-tensors 0.20 raises &apos;tensor column shape must be divisible by the given group_size&apos;)</source>
        <translation>%1：K = %2 列不能被 group_size %3 整除（compressed-tensors 0.20 会报错 &apos;tensor column shape must be divisible by the given group_size&apos;）</translation>
    </message>
    <message>
        <source>%1: the weight [%2, %3] is not a whole number of %4×%5 FP8 blocks (transformers&apos; FineGrainedFP8 refuses: not divisible by scale grid)</source>
        <translation>%1：权重 [%2, %3] 不是整数个 %4×%5 FP8 块（transformers 的 FineGrainedFP8 会拒绝：not divisible by scale grid）</translation>
    </message>
    <message>
        <source>%1 of %2 %3 (E8M0) scales are 2^-127 (code 0) where the group&apos;s codes are not: the scale underflowed when it was cast, and the group decodes to (almost) 0</source>
        <translation>%2 个 %3（E8M0）缩放中有 %1 个为 2^-127（码 0），而该组码值并非如此：缩放在转换时下溢，该组解码为（几乎）0</translation>
    </message>
    <message>
        <source>%1 of %2 %3 scales are 2^-127 (code 0) where the group&apos;s codes are not: the scale underflowed when it was cast, and the group decodes to (almost) 0</source>
        <translation>%2 个 %3 缩放中有 %1 个为 2^-127（码 0），而该组码值并非如此：缩放在转换时下溢，该组解码为（几乎）0</translation>
    </message>
    <message>
        <source>%1 of %2 %3 scales are 0 where the group&apos;s codes are not: the scale underflowed when it was cast, and the group decodes to (almost) 0</source>
        <translation>%2 个 %3 缩放中有 %1 个为 0，而该组码值并非如此：缩放在转换时下溢，该组解码为（几乎）0</translation>
    </message>
    <message>
        <source>%1 E8M0 scales are 2^-127 over groups whose codes are all 0</source>
        <translation>%1 个 E8M0 缩放为 2^-127，对应的组码值全为 0</translation>
    </message>
    <message>
        <source>%1 has NVFP4 weight_global_scale %2 but %3 of the same fused group %4 has %5: vLLM fuses them and takes one global scale, so they cannot all decode right</source>
        <translation>%1 的 NVFP4 weight_global_scale 为 %2，但同一融合组 %4 中的 %3 为 %5：vLLM 会融合它们并只取一个全局缩放，因此无法全部正确解码</translation>
    </message>
    <message>
        <source>config.json says tie_word_embeddings: true but %1 is stored quantized: transformers ties it to the embeddings and fails to load it</source>
        <translation>config.json 中 tie_word_embeddings 为 true，但 %1 以量化形式存储：transformers 会将其与嵌入层绑定并加载失败</translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is %2 bytes, more than the 100 MB a JSON file here may have</source>
        <translation>%1 有 %2 字节，超过此处 JSON 文件允许的 100 MB</translation>
    </message>
    <message>
        <source>%1 is a git-LFS pointer, not the file: fetch it with `git lfs pull`</source>
        <translation>%1 是 git-LFS 指针而不是文件本身：请用 `git lfs pull` 获取</translation>
    </message>
    <message>
        <source>%1 is not valid JSON: %2</source>
        <translation>%1 不是有效的 JSON：%2</translation>
    </message>
    <message>
        <source>the index</source>
        <translation>索引</translation>
    </message>
    <message>
        <source>the shard cannot be read: %1</source>
        <translation>无法读取分片：%1</translation>
    </message>
    <message>
        <source>a git-LFS pointer file (%1 bytes), not the weights: fetch them with `git lfs pull`</source>
        <translation>git-LFS 指针文件（%1 字节），不是权重：请用 `git lfs pull` 获取</translation>
    </message>
    <message>
        <source>truncated: %1 bytes, shorter than the 8-byte header size</source>
        <translation>已截断：%1 字节，短于 8 字节的头部大小字段</translation>
    </message>
    <message>
        <source>the header size says %1 bytes but the file has %2 after it (truncated, or not a safetensors file)</source>
        <translation>头部大小为 %1 字节，但文件其后只有 %2 字节（已截断，或不是 safetensors 文件）</translation>
    </message>
    <message>
        <source>the header is %1 bytes, more than the 100 MB safetensors allows</source>
        <translation>头部有 %1 字节，超过 safetensors 允许的 100 MB</translation>
    </message>
    <message>
        <source>the header is not a JSON object</source>
        <translation>头部不是 JSON 对象</translation>
    </message>
    <message>
        <source>__metadata__ is not an object of strings</source>
        <translation>__metadata__ 不是字符串对象</translation>
    </message>
    <message>
        <source>header entry of &apos;%1&apos;: %2</source>
        <translation>“%1”的头部条目：%2</translation>
    </message>
    <message>
        <source>not an object with dtype, shape and data_offsets</source>
        <translation>不是含 dtype、shape 和 data_offsets 的对象</translation>
    </message>
    <message>
        <source>dtype is not a string</source>
        <translation>dtype 不是字符串</translation>
    </message>
    <message>
        <source>unknown dtype &apos;%1&apos;</source>
        <translation>未知 dtype“%1”</translation>
    </message>
    <message>
        <source>shape is not a list of non-negative integers of a sane size</source>
        <translation>shape 不是大小合理的非负整数列表</translation>
    </message>
    <message>
        <source>data_offsets is not [begin, end] of non-negative integers</source>
        <translation>data_offsets 不是由非负整数组成的 [begin, end]</translation>
    </message>
    <message>
        <source>data_offsets end before they begin</source>
        <translation>data_offsets 的结束位置在开始位置之前</translation>
    </message>
    <message>
        <source>holds %1 bytes, but %2 of this shape needs %3</source>
        <translation>含 %1 字节，但此形状的 %2 需要 %3 字节</translation>
    </message>
    <message>
        <source>holds %1 bytes, but %2 of this shape needs %3 and a fraction</source>
        <translation>含 %1 字节，但此形状的 %2 需要 %3 字节多一点</translation>
    </message>
    <message>
        <source>truncated: the tensor ends at byte %1 of a %2-byte file</source>
        <translation>已截断：张量结束于一个 %2 字节文件的字节 %1 处</translation>
    </message>
    <message>
        <source>its bytes overlap the previous tensor&apos;s (data_offsets begin %1 &lt; %2)</source>
        <translation>其字节与上一个张量重叠（data_offsets 开始 %1 &lt; %2）</translation>
    </message>
    <message>
        <source>%1 bytes before this tensor belong to no tensor</source>
        <translation>此张量之前有 %1 字节不属于任何张量</translation>
    </message>
    <message>
        <source>%1 bytes at the end of the file belong to no tensor</source>
        <translation>文件末尾有 %1 字节不属于任何张量</translation>
    </message>
    <message>
        <source>no config.json beside the weights</source>
        <translation>权重旁没有 config.json</translation>
    </message>
    <message>
        <source>the index has no weight_map object</source>
        <translation>索引没有 weight_map 对象</translation>
    </message>
    <message>
        <source>the index maps this tensor to something that is not a file name in the folder</source>
        <translation>索引将此张量映射到的不是文件夹中的文件名</translation>
    </message>
    <message>
        <source>a .safetensors file the index does not reference (stale or misplaced?)</source>
        <translation>索引未引用的 .safetensors 文件（过时或放错位置？）</translation>
    </message>
    <message>
        <source>no .safetensors file and no index here</source>
        <translation>此处没有 .safetensors 文件，也没有索引</translation>
    </message>
    <message>
        <source>%1 .safetensors files and no model.safetensors.index.json: the readers refuse to guess which belong together; examined all of them</source>
        <translation>%1 个 .safetensors 文件且没有 model.safetensors.index.json：读取器不会猜测哪些属于同一模型；已全部检查</translation>
    </message>
    <message>
        <source>the shard is missing (%1 tensors of the index live there)</source>
        <translation>分片缺失（索引中有 %1 个张量位于其中）</translation>
    </message>
    <message>
        <source>present in %1 shards (%2, %3): which copy is meant is undefined</source>
        <translation>存在于 %1 个分片中（%2、%3）：无法确定指的是哪一份</translation>
    </message>
    <message>
        <source>the index places this tensor in %1, whose header does not list it</source>
        <translation>索引将此张量放在 %1 中，但其头部没有列出它</translation>
    </message>
    <message>
        <source>in a shard&apos;s header but not in the index&apos;s weight_map (loaders will not see it)</source>
        <translation>在分片头部中但不在索引的 weight_map 中（加载器看不到它）</translation>
    </message>
    <message>
        <source>metadata.total_size is %1 but the tensors hold %2 bytes</source>
        <translation>metadata.total_size 为 %1，但张量共 %2 字节</translation>
    </message>
    <message>
        <source>%1 NaN, %2 Inf and %3 zero scales of %4 in this quantized module</source>
        <translation>此量化模块的 %4 个缩放中有 %1 个 NaN、%2 个 Inf 和 %3 个零</translation>
    </message>
    <message>
        <source>%1 is stored as %2 but %3 of the same fused group %4 as %5: vLLM fuses them into one GEMM with one scheme and refuses (or misreads) the mix</source>
        <translation>%1 以 %2 存储，但同一融合组 %4 中的 %3 以 %5 存储：vLLM 会将它们融合为一个采用单一方案的 GEMM，并拒绝（或误读）这种混合</translation>
    </message>
    <message>
        <source>config.json declares a quantization_config but no tensor is stored quantized</source>
        <translation>config.json 声明了 quantization_config，但没有张量以量化形式存储</translation>
    </message>
    <message>
        <source>%1 quantized modules without a quantization_config: their layout was inferred from the tensors</source>
        <translation>%1 个量化模块没有 quantization_config：其布局由张量推断</translation>
    </message>
    <message>
        <source>cannot create a scratch folder</source>
        <translation>无法创建临时工作文件夹</translation>
    </message>
    <message>
        <source>cannot be mapped: %1</source>
        <translation>无法映射：%1</translation>
    </message>
    <message>
        <source>the same bytes as &apos;%1&apos; (tied or duplicated weights)</source>
        <translation>与“%1”字节相同（绑定或重复的权重）</translation>
    </message>
    <message>
        <source>%1 NaN codes (0x7F/0xFF) in an F8_E4M3 (e4m3fn) tensor</source>
        <translation>F8_E4M3（e4m3fn）张量中有 %1 个 NaN 码（0x7F/0xFF）</translation>
    </message>
    <message>
        <source>%1 % of the codes are 0x80 and none exceeds 240: written as e4m3fnuz (where 0x80 is NaN) but labelled F8_E4M3 (e4m3fn)?</source>
        <translation>%1% 的码为 0x80 且没有超过 240 的：按 e4m3fnuz（其中 0x80 为 NaN）写出却标为 F8_E4M3（e4m3fn）？</translation>
    </message>
    <message>
        <source>%1 NaN and %2 Inf scales of %3: every weight they scale decodes to NaN/Inf</source>
        <translation>%3 个缩放中有 %1 个 NaN 和 %2 个 Inf：它们缩放的每个权重都解码为 NaN/Inf</translation>
    </message>
    <message>
        <source>%1 NaN and %2 Inf scales of %3 (E8M0 0xFF is NaN): every weight they scale decodes to NaN/Inf</source>
        <translation>%3 个缩放中有 %1 个 NaN 和 %2 个 Inf（E8M0 的 0xFF 为 NaN）：它们缩放的每个权重都解码为 NaN/Inf</translation>
    </message>
    <message>
        <source>%1 zero scales of %2: their groups decode to 0 (or divide by zero where the scale is inverted)</source>
        <translation>%2 个缩放中有 %1 个为零：其组解码为 0（在取倒数的情况下则除以零）</translation>
    </message>
    <message>
        <source>%1 subnormal scales: they flush to 0 on hardware that flushes denormals</source>
        <translation>%1 个次正规缩放：在将非规格化数清零的硬件上变为 0</translation>
    </message>
    <message>
        <source>%1 scales above 448 cannot be cast to E4M3 (they become NaN)</source>
        <translation>%1 个大于 448 的缩放无法转换为 E4M3（会变为 NaN）</translation>
    </message>
    <message>
        <source>95 % of the values lie in [0.5, 4): BF16 bits labelled F16? (median |x| %1)</source>
        <translation>95% 的值位于 [0.5, 4)：BF16 位被标为 F16？（中位数 |x| %1）</translation>
    </message>
    <message>
        <source>median |x| is %1: F16 bits labelled BF16?</source>
        <translation>中位数 |x| 为 %1：F16 位被标为 BF16？</translation>
    </message>
    <message>
        <source>every %1 (%2) is 1.0: a placeholder, not calibrated?</source>
        <translation>每个 %1（%2）都为 1.0：是占位值而未校准？</translation>
    </message>
    <message>
        <source>%1 %2 is more than 10× the median of the layers (%3)</source>
        <translation>%1 %2 超过各层中位数（%3）的 10 倍</translation>
    </message>
    <message>
        <source>a packed weight without weight_scale: it cannot be decoded</source>
        <translation>没有 weight_scale 的打包权重：无法解码</translation>
    </message>
    <message>
        <source>a packed weight without weight_shape: the unpacked width is inferred from the config or the words</source>
        <translation>没有 weight_shape 的打包权重：解包宽度由配置或字数推断</translation>
    </message>
    <message>
        <source>a weight scale without its weight</source>
        <translation>没有对应权重的权重缩放</translation>
    </message>
    <message>
        <source>a zero point without its scale</source>
        <translation>没有对应缩放的零点</translation>
    </message>
    <message>
        <source>the reader refuses the checkpoint: %1</source>
        <translation>读取器拒绝此检查点：%1</translation>
    </message>
    <message>
        <source>%1 quantized modules were not given to the reader (more than %2 MiB of valid tensors to salvage); fix the completeness errors and run again for their verdict</source>
        <translation>%1 个量化模块未交给读取器（可挽救的有效张量超过 %2 MiB）；请修复完整性错误后重新运行以获得其结论</translation>
    </message>
    <message>
        <source>cannot read the tensor&apos;s bytes</source>
        <translation>无法读取张量的字节</translation>
    </message>
    <message>
        <source>cannot write the salvaged copy</source>
        <translation>无法写入挽救的副本</translation>
    </message>
    <message>
        <source>the files have completeness errors, so the reader&apos;s per-module verdict ran on the valid tensors of the %1 modules that look quantized</source>
        <translation>文件存在完整性错误，因此读取器的逐模块结论是在看起来已量化的 %1 个模块的有效张量上得出的</translation>
    </message>
    <message>
        <source>the reader&apos;s per-module verdict could not run on the valid tensors: %1</source>
        <translation>读取器的逐模块结论无法在有效张量上运行：%1</translation>
    </message>
    <message>
        <source>weight %1 of &apos;%2&apos; is not finite</source>
        <translation>“%2”的权重 %1 不是有限值</translation>
    </message>
    <message>
        <source>the file ends inside %1</source>
        <translation>文件在%1内部结束</translation>
    </message>
    <message>
        <source>the entry count</source>
        <translation>条目数</translation>
    </message>
    <message>
        <source>the entry count is %1 (at least 1)</source>
        <translation>条目数为 %1（至少为 1）</translation>
    </message>
    <message>
        <source>the entry count %1 cannot fit in %2 bytes</source>
        <translation>条目数 %1 无法容纳于 %2 字节中</translation>
    </message>
    <message>
        <source>an entry&apos;s name length</source>
        <translation>条目名称长度</translation>
    </message>
    <message>
        <source>entry %1&apos;s name length %2 is outside the file</source>
        <translation>条目 %1 的名称长度 %2 超出文件范围</translation>
    </message>
    <message>
        <source>entry %1&apos;s name is not UTF-8</source>
        <translation>条目 %1 的名称不是 UTF-8</translation>
    </message>
    <message>
        <source>an entry&apos;s call count</source>
        <translation>条目调用次数</translation>
    </message>
    <message>
        <source>an entry&apos;s value count</source>
        <translation>条目值数量</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has a negative call count %2</source>
        <translation>“%1”的调用次数 %2 为负数</translation>
    </message>
    <message>
        <source>&apos;%1&apos; claims %2 values, %3 fit in the rest of the file</source>
        <translation>“%1”声称有 %2 个值，而文件剩余部分只能容纳 %3 个</translation>
    </message>
    <message>
        <source>&apos;%1&apos; appears twice</source>
        <translation>“%1”出现两次</translation>
    </message>
    <message>
        <source>the chunk count</source>
        <translation>块数</translation>
    </message>
    <message>
        <source>the dataset name&apos;s length</source>
        <translation>数据集名称长度</translation>
    </message>
    <message>
        <source>an imatrix GGUF needs imatrix.datasets, imatrix.chunk_count and imatrix.chunk_size</source>
        <translation>imatrix GGUF 需要 imatrix.datasets、imatrix.chunk_count 和 imatrix.chunk_size</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has no &apos;%2.counts&apos;</source>
        <translation>“%1”没有“%2.counts”</translation>
    </message>
    <message>
        <source>&apos;%1&apos;: in_sum2 and counts must be F32</source>
        <translation>“%1”：in_sum2 和 counts 必须为 F32</translation>
    </message>
    <message>
        <source>&apos;%1&apos;: counts [1, %2] do not fit in_sum2 [%3, %4]</source>
        <translation>“%1”：counts [1, %2] 与 in_sum2 [%3, %4] 不匹配</translation>
    </message>
    <message>
        <source>a GGUF imatrix holds NAME.in_sum2 / NAME.counts tensors; this file has none</source>
        <translation>GGUF imatrix 含有 NAME.in_sum2 / NAME.counts 张量；此文件一个也没有</translation>
    </message>
    <message>
        <source>imatrix: the capture&apos;s &apos;%1&apos; has %2 input channels, tensor &apos;%3&apos; has %4</source>
        <translation>imatrix：采集中的“%1”有 %2 个输入通道，而张量“%3”有 %4 个</translation>
    </message>
    <message>
        <source>imatrix: no module of the capture pairs with a tensor of &apos;%1&apos; (paired by HF name; architecture &apos;%2&apos;)</source>
        <translation>imatrix：采集中没有模块能与“%1”的张量配对（按 HF 名称配对；架构“%2”）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a Quantscope capture, not llama.cpp&apos;s imatrix: pair it with --capture (and imatrix=true in the gguf spec)</source>
        <translation>“%1”是 Quantscope 采集，不是 llama.cpp 的 imatrix：请用 --capture 配对（并在 gguf 规格中设 imatrix=true）</translation>
    </message>
    <message>
        <source>the importance matrix holds %1 weights for &apos;%2&apos;, the tensor&apos;s rows have %3 columns</source>
        <translation>重要性矩阵为“%2”提供 %1 个权重，而张量的行有 %3 列</translation>
    </message>
    <message>
        <source>the importance matrix has no entry for this tensor (looked up as %1 among its %2 entries)</source>
        <translation>重要性矩阵中没有此张量的条目（在其 %2 个条目中按 %1 查找）</translation>
    </message>
    <message>
        <source>%1: method &apos;awq&apos; — its checkpoint needs 1/s* folded into the op before the module (an RMSNorm weight, up_proj&apos;s or v_proj&apos;s rows), which this per-module writer does not do; export the recipe for llm-compressor (AWQModifier) or quantize with gptq or int</source>
        <translation>%1：方法“awq”——其检查点需要把 1/s* 折叠进模块之前的算子（RMSNorm 权重、up_proj 或 v_proj 的行），而这个逐模块写出器不做此事；请将配方导出给 llm-compressor（AWQModifier），或改用 gptq 或 int 量化</translation>
    </message>
    <message>
        <source>%1: method &apos;%2&apos; — Quark&apos;s real_quantized checkpoint layout written here holds INT4 per output channel or per group along K, and ProgressiveSpec FP8 per tensor → INT4 per channel</source>
        <translation>%1：方法“%2”——此处写出的 Quark real_quantized 检查点布局只容纳按输出通道或沿 K 分组的 INT4，以及 ProgressiveSpec 的按张量 FP8 → 按通道 INT4</translation>
    </message>
    <message>
        <source>K = %1 is not a multiple of group %2 — Quark&apos;s PerGroup observer raises &quot;not divisible by group_size&quot;; choose a group that divides K or exclude the module</source>
        <translation>K = %1 不是组 %2 的倍数——Quark 的 PerGroup 观察器会报错 &quot;not divisible by group_size&quot;；请选择能整除 K 的组，或排除该模块</translation>
    </message>
    <message>
        <source>%1: INT %2 scales — the %3 writer stores INT per group or per output channel</source>
        <translation>%1：INT %2 缩放——%3 写出器只存储按组或按输出通道的 INT</translation>
    </message>
    <message>
        <source>%1: compressed-tensors format %2 — the checkpoint writer stores pack-quantized (INT), float-quantized (FP8) and nvfp4-pack-quantized</source>
        <translation>%1：compressed-tensors 格式 %2——检查点写出器只存储 pack-quantized（INT）、float-quantized（FP8）和 nvfp4-pack-quantized</translation>
    </message>
    <message>
        <source>K = %1 is not a multiple of group %2 — compressed-tensors 0.20 raises &quot;tensor column shape must be divisble by the given group_size&quot; (quantization/lifecycle/forward_helpers.py) when it quantizes or decompresses such groups; choose a group that divides K or exclude the module</source>
        <translation>K = %1 不是组 %2 的倍数——compressed-tensors 0.20 在量化或解压这样的组时会报错 &quot;tensor column shape must be divisble by the given group_size&quot;（quantization/lifecycle/forward_helpers.py）；请选择能整除 K 的组，或排除该模块</translation>
    </message>
    <message>
        <source>FP8 blocks of %1 do not tile it — vLLM&apos;s block kernels need K a multiple of the block and ragged blocks load with wrong weights; exclude the module or use per-channel FP8</source>
        <translation>%1 的 FP8 块无法完整铺满它——vLLM 的块内核要求 K 是块的倍数，不完整的块会加载错误的权重；请排除该模块或改用按通道 FP8</translation>
    </message>
    <message>
        <source>K is not a multiple of NVFP4&apos;s 16-element groups</source>
        <translation>K 不是 NVFP4 16 元素组的倍数</translation>
    </message>
    <message>
        <source>%1: the FP8 block layout holds FP8 E4M3 per square block (method fp8, granularity block); this is %2</source>
        <translation>%1：FP8 块布局只容纳按方块的 FP8 E4M3（方法 fp8，粒度 block）；此处为 %2</translation>
    </message>
    <message>
        <source>FP8 blocks of %1 do not tile it — transformers&apos; FineGrainedFP8 refuses it (&quot;not divisible by scale grid&quot;); exclude the module or choose a block that divides both dimensions</source>
        <translation>%1 的 FP8 块无法完整铺满它——transformers 的 FineGrainedFP8 会拒绝（&quot;not divisible by scale grid&quot;）；请排除该模块，或选择能整除两个维度的块</translation>
    </message>
    <message>
        <source>%1: the FP8 block layout holds FP8 E4M3 block results</source>
        <translation>%1：FP8 块布局只容纳 FP8 E4M3 块结果</translation>
    </message>
    <message>
        <source>dense (not quantized)</source>
        <translation>稠密（未量化）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a config format; checkpoints are written as quark, compressed-tensors, fp8-block or quantscope</source>
        <translation>“%1”是配置格式；检查点可写为 quark、compressed-tensors、fp8-block 或 quantscope</translation>
    </message>
    <message>
        <source>activations fp8-static: the %1 layout stores no input scales</source>
        <translation>激活 fp8-static：%1 布局不存储输入缩放</translation>
    </message>
    <message>
        <source>activations fp8-static: static input scales come from calibration data, and this export has none — a checkpoint that declares them without `input_scale` tensors loads with NaN outputs (transformers) or is refused (Quark). Give a capture of the model&apos;s activations (--capture CAP.safetensors, from quantscope-cli capture), use --activations fp8-dynamic, or export the recipe as an llm-compressor recipe or a Quark script, which calibrate</source>
        <translation>激活 fp8-static：静态输入缩放来自校准数据，而本次导出没有——声明了它们却没有 `input_scale` 张量的检查点加载后输出为 NaN（transformers）或被拒绝（Quark）。请提供模型激活的采集（--capture CAP.safetensors，来自 quantscope-cli capture），使用 --activations fp8-dynamic，或将配方导出为会自行校准的 llm-compressor 配方或 Quark 脚本</translation>
    </message>
    <message>
        <source>%1: kept dense by default — %2 (--no-default-excludes quantizes it)</source>
        <translation>%1：默认保持稠密——%2（--no-default-excludes 会量化它）</translation>
    </message>
    <message>
        <source>%1: kept dense by default — %2 (--no-default-excludes and a rule naming it quantize it)</source>
        <translation>%1：默认保持稠密——%2（--no-default-excludes 加上点名它的规则会量化它）</translation>
    </message>
    <message>
        <source>%1: %2 gives %3 specs (candidates a scan compares); an export needs the one chosen</source>
        <translation>%1：%2 给出 %3 个规格（扫描比较的候选）；导出需要已选定的那一个</translation>
    </message>
    <message>
        <source>an embedding — %1 quantizes Linear layers; exclude it</source>
        <translation>嵌入层——%1 量化的是 Linear 层；请排除它</translation>
    </message>
    <message>
        <source>the recipe quantizes no module of %1 (after the default exclusions): nothing would be exported</source>
        <translation>配方未量化 %1 的任何模块（在默认排除之后）：没有可导出的内容</translation>
    </message>
    <message>
        <source>the recipe quantizes no module of %1: nothing would be exported</source>
        <translation>配方未量化 %1 的任何模块：没有可导出的内容</translation>
    </message>
    <message>
        <source>%1: the capture %2 holds no inputs of this module, so it has no static input scale</source>
        <translation>%1：采集 %2 不含此模块的输入，因此没有静态输入缩放</translation>
    </message>
    <message>
        <source>%1: its captured inputs are not finite — no static input scale can be derived</source>
        <translation>%1：其采集的输入不是有限值——无法推导静态输入缩放</translation>
    </message>
    <message>
        <source>%1: its captured inputs are all zero — no static input scale can be derived</source>
        <translation>%1：其采集的输入全为零——无法推导静态输入缩放</translation>
    </message>
    <message>
        <source>fused group %1: %2 is %3 but %4 is %5 — serving engines (vLLM, SGLang) fuse these into one layer with one scheme and refuse the checkpoint; give the group one spec</source>
        <translation>融合组 %1：%2 为 %3，但 %4 为 %5——推理引擎（vLLM、SGLang）会把它们融合为采用单一方案的一层并拒绝该检查点；请为该组指定同一个规格</translation>
    </message>
    <message>
        <source>%1: the recipe gives %2 but %3 would read the written config as %4 — the config cannot express this precedence; refusing rather than writing a checkpoint the toolkit reads differently</source>
        <translation>%1：配方给出 %2，但 %3 会把写出的配置读作 %4——配置无法表达这种优先级；宁可拒绝，也不写出工具包会读错的检查点</translation>
    </message>
    <message>
        <source>%1: the recipe gives %2 (%3) but %4 would read the written config as %5 — the config cannot express this precedence; refusing rather than writing a checkpoint the toolkit reads differently</source>
        <translation>%1：配方给出 %2（%3），但 %4 会把写出的配置读作 %5——配置无法表达这种优先级；宁可拒绝，也不写出工具包会读错的检查点</translation>
    </message>
    <message>
        <source>wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>lm_head is quantized: config.json&apos;s tie_word_embeddings set to false (transformers would otherwise tie it back to the dense embeddings)</source>
        <translation>lm_head 已量化：已将 config.json 的 tie_word_embeddings 设为 false（否则 transformers 会把它重新绑定到稠密嵌入层）</translation>
    </message>
    <message>
        <source>re-read: %1 is not detected as quantized in the written file</source>
        <translation>重新读取：在写出的文件中未检测到 %1 已量化</translation>
    </message>
    <message>
        <source>re-read: %1 decodes to other values than the quantizer&apos;s Ŵ</source>
        <translation>重新读取：%1 解码出的值与量化器的 Ŵ 不同</translation>
    </message>
    <message>
        <source>re-read: %1 stores %2 bits per code, declared %3</source>
        <translation>重新读取：%1 每个码值存储 %2 位，声明为 %3</translation>
    </message>
    <message>
        <source>re-read: %1 reads back as quantized, but the recipe keeps it dense</source>
        <translation>重新读取：%1 读回为已量化，但配方让它保持稠密</translation>
    </message>
    <message>
        <source>re-read: %1 stores the spec %2, the recipe gives %3</source>
        <translation>重新读取：%1 存储的规格为 %2，而配方给出 %3</translation>
    </message>
    <message>
        <source>per-tensor min-max (max |x| / 448) over the capture %1 (%2 tokens, input sha256 %3)</source>
        <translation>在采集 %1 上按张量取最小最大值（max |x| / 448）（%2 个 token，输入 sha256 %3）</translation>
    </message>
    <message>
        <source>the output folder exists and is not empty</source>
        <translation>输出文件夹已存在且非空</translation>
    </message>
    <message>
        <source>cannot create the output folder</source>
        <translation>无法创建输出文件夹</translation>
    </message>
    <message>
        <source>no input tensor %1 for the output tensor %2</source>
        <translation>输出张量 %2 没有输入张量 %1</translation>
    </message>
    <message>
        <source>cannot rename the written checkpoint into place</source>
        <translation>无法将写出的检查点重命名到目标位置</translation>
    </message>
    <message>
        <source>compressed-tensors INT format &apos;%1&apos; — pack-quantized or int-quantized</source>
        <translation>compressed-tensors INT 格式“%1”——应为 pack-quantized 或 int-quantized</translation>
    </message>
    <message>
        <source>%1: rounding half_away — compressed-tensors rounds half to even</source>
        <translation>%1：舍入 half_away——compressed-tensors 采用四舍六入五成双</translation>
    </message>
    <message>
        <source>%1: E8M0 scales — compressed-tensors&apos; integer schemes store float scales</source>
        <translation>%1：E8M0 缩放——compressed-tensors 的整数方案存储浮点缩放</translation>
    </message>
    <message>
        <source>%1: channel axis 1 — compressed-tensors&apos; channel strategy is per output row</source>
        <translation>%1：通道轴 1——compressed-tensors 的通道策略按输出行</translation>
    </message>
    <message>
        <source>%1: FP8 E5M2 — compressed-tensors&apos; float8 is E4M3</source>
        <translation>%1：FP8 E5M2——compressed-tensors 的 float8 为 E4M3</translation>
    </message>
    <message>
        <source>%1: NVFP4 group %2 — compressed-tensors&apos; NVFP4 has 16-element groups</source>
        <translation>%1：NVFP4 组 %2——compressed-tensors 的 NVFP4 使用 16 元素组</translation>
    </message>
    <message>
        <source>%1: MXFP4 group %2 — compressed-tensors&apos; MXFP4 has 32-element blocks</source>
        <translation>%1：MXFP4 组 %2——compressed-tensors 的 MXFP4 使用 32 元素块</translation>
    </message>
    <message>
        <source>%1: method &apos;%2&apos; — %3</source>
        <translation>%1：方法“%2”——%3</translation>
    </message>
    <message>
        <source>MiLo&apos;s low-rank compensators (milo_U, milo_V) have no compressed-tensors scheme</source>
        <translation>MiLo 的低秩补偿器（milo_U、milo_V）没有对应的 compressed-tensors 方案</translation>
    </message>
    <message>
        <source>HQQ&apos;s float zero points have no compressed-tensors scheme (its zero points are integers)</source>
        <translation>HQQ 的浮点零点没有对应的 compressed-tensors 方案（其零点为整数）</translation>
    </message>
    <message>
        <source>compressed-tensors has no two-stage (ProgressiveSpec) scheme; export it to Quark</source>
        <translation>compressed-tensors 没有两阶段（ProgressiveSpec）方案；请导出为 Quark</translation>
    </message>
    <message>
        <source>constOpt&apos;s fixed-constant codebook has no compressed-tensors scheme</source>
        <translation>constOpt 的固定常数码本没有对应的 compressed-tensors 方案</translation>
    </message>
    <message>
        <source>%1: FP8 activations with %2 %3-bit weights — this exporter writes FP8 activations for FP8 weights only</source>
        <translation>%1：FP8 激活搭配 %2 %3 位权重——此导出器只为 FP8 权重写出 FP8 激活</translation>
    </message>
    <message>
        <source>%1 has %2 specs (candidates a scan compares); an export needs the one chosen</source>
        <translation>%1 有 %2 个规格（扫描比较的候选）；导出需要已选定的那一个</translation>
    </message>
    <message>
        <source>%1 comes after the catch-all %2 and wins no module; remove it or move it first</source>
        <translation>%1 位于兜底规则 %2 之后，不会匹配到任何模块；请删除它或将其移到前面</translation>
    </message>
    <message>
        <source>the recipe has no rule: a compressed-tensors config needs at least one config group</source>
        <translation>配方没有规则：compressed-tensors 配置至少需要一个配置组</translation>
    </message>
    <message>
        <source>compressed-tensors&apos; kv_cache_scheme</source>
        <translation>compressed-tensors 的 kv_cache_scheme</translation>
    </message>
    <message>
        <source>%1: INT%2 — this exporter writes Quark&apos;s int4 and int8 dtypes only</source>
        <translation>%1：INT%2——此导出器只写出 Quark 的 int4 和 int8 dtype</translation>
    </message>
    <message>
        <source>%1: rounding half_away — Quark rounds half to even (round_method half_even)</source>
        <translation>%1：舍入 half_away——Quark 采用四舍六入五成双（round_method half_even）</translation>
    </message>
    <message>
        <source>%1: scale dtype %2 — Quark&apos;s integer specs here store float32 scales (scale_type float)</source>
        <translation>%1：缩放 dtype %2——此处 Quark 的整数规格存储 float32 缩放（scale_type float）</translation>
    </message>
    <message>
        <source>%1: integer block scales — Quark has no 2-D block scheme for integers</source>
        <translation>%1：整数块缩放——Quark 没有用于整数的二维块方案</translation>
    </message>
    <message>
        <source>%1: FP8 block scales — this exporter writes Quark FP8 per tensor or per channel only</source>
        <translation>%1：FP8 块缩放——此导出器只写出按张量或按通道的 Quark FP8</translation>
    </message>
    <message>
        <source>Quark has no such scheme</source>
        <translation>Quark 没有这种方案</translation>
    </message>
    <message>
        <source>MiLo&apos;s low-rank compensators (milo_U, milo_V) have no place in a Quark config</source>
        <translation>MiLo 的低秩补偿器（milo_U、milo_V）在 Quark 配置中无处安放</translation>
    </message>
    <message>
        <source>HQQ&apos;s float zero points and optimised scales have no Quark scheme</source>
        <translation>HQQ 的浮点零点和优化后的缩放没有对应的 Quark 方案</translation>
    </message>
    <message>
        <source>constOpt&apos;s fixed-constant codebook has no Quark scheme</source>
        <translation>constOpt 的固定常数码本没有对应的 Quark 方案</translation>
    </message>
    <message>
        <source>this exporter does not write Quark&apos;s FP4 schemes yet</source>
        <translation>此导出器尚不写出 Quark 的 FP4 方案</translation>
    </message>
    <message>
        <source>%1: regex &apos;%2&apos; — Quark matches fnmatch patterns only; write the rule in the fnmatch dialect</source>
        <translation>%1：正则表达式“%2”——Quark 只匹配 fnmatch 模式；请用 fnmatch 方言编写该规则</translation>
    </message>
    <message>
        <source>the recipe has no catch-all rule (&apos;*&apos;): Quark quantizes every module the exclude list does not name with global_quant_config — end the rules with &apos;*&apos; or exclude the modules no rule should quantize</source>
        <translation>配方没有兜底规则（“*”）：Quark 会用 global_quant_config 量化排除列表未列出的每个模块——请以“*”结束规则列表，或排除不应被任何规则量化的模块</translation>
    </message>
    <message>
        <source>layer &apos;%1&apos;</source>
        <translation>层“%1”</translation>
    </message>
    <message>
        <source>Quark&apos;s kv_cache_quant_config</source>
        <translation>Quark 的 kv_cache_quant_config</translation>
    </message>
    <message>
        <source>kv_cache: Quark gives every &apos;%1&apos; module one layer config; the recipe quantizes them differently (%2)</source>
        <translation>kv_cache：Quark 给每个“%1”模块同一个层配置；而配方对它们的量化各不相同（%2）</translation>
    </message>
    <message>
        <source>the catch-all rule</source>
        <translation>兜底规则</translation>
    </message>
    <message>
        <source>%1: the Quark script writes FP8E4M3PerTensorSpec, Int4PerChannelSpec and Int4PerGroupSpec (and their ProgressiveSpec); use --format quark for this spec</source>
        <translation>%1：Quark 脚本只写出 FP8E4M3PerTensorSpec、Int4PerChannelSpec 和 Int4PerGroupSpec（及其 ProgressiveSpec）；此规格请使用 --format quark</translation>
    </message>
    <message>
        <source>kv_cache: %1 states one KV-cache scheme for every attention layer; the recipe gives layers different schemes (boundary %2, %3 range(s)) — keep the boundary layers quantized or export without kv_cache</source>
        <translation>kv_cache：%1 为所有注意力层规定同一个 KV 缓存方案；而配方给各层不同的方案（boundary %2，%3 个范围）——请让边界层保持量化，或不带 kv_cache 导出</translation>
    </message>
    <message>
        <source>kv_cache: %1 states one scheme for K and V; the recipe has K %2, V %3</source>
        <translation>kv_cache：%1 为 K 和 V 规定同一个方案；而配方中 K 为 %2，V 为 %3</translation>
    </message>
    <message>
        <source>kv_cache: fp8-head — %1&apos;s KV cache is FP8 per tensor</source>
        <translation>kv_cache：fp8-head——%1 的 KV 缓存为按张量 FP8</translation>
    </message>
    <message>
        <source>kv_cache: %1 is a vLLM run-time setting (--kv-cache-dtype fp8), not a checkpoint config; use fp8 (calibrated amax/448) to write k_scale/v_scale</source>
        <translation>kv_cache：%1 是 vLLM 的运行时设置（--kv-cache-dtype fp8），不是检查点配置；请使用 fp8（校准的 amax/448）写出 k_scale/v_scale</translation>
    </message>
    <message>
        <source>kv_cache: %1 is a vLLM run-time setting (--kv-cache-dtype fp8 --calculate-kv-scales), not a checkpoint config; use fp8 (calibrated amax/448) to write k_scale/v_scale</source>
        <translation>kv_cache：%1 是 vLLM 的运行时设置（--kv-cache-dtype fp8 --calculate-kv-scales），不是检查点配置；请使用 fp8（校准的 amax/448）写出 k_scale/v_scale</translation>
    </message>
    <message>
        <source>kv_cache: %1 — %2 and vLLM read an FP8 KV cache only (num_bits 8, type float); a 4-bit or BF16 KV cache has no config to state it</source>
        <translation>kv_cache：%1——%2 和 vLLM 只读取 FP8 KV 缓存（num_bits 8，type float）；4 位或 BF16 KV 缓存没有可表述它的配置</translation>
    </message>
    <message>
        <source>rule &apos;%1&apos;: llm-compressor runs one GPTQModifier, and the recipe&apos;s gptq specs differ in block_size, dampening or actorder</source>
        <translation>规则“%1”：llm-compressor 只运行一个 GPTQModifier，而配方中的 gptq 规格在 block_size、dampening 或 actorder 上不同</translation>
    </message>
    <message>
        <source>rule &apos;%1&apos;: llm-compressor runs one AWQModifier, and the recipe&apos;s awq specs differ in n_grid or duo_scaling</source>
        <translation>规则“%1”：llm-compressor 只运行一个 AWQModifier，而配方中的 awq 规格在 n_grid 或 duo_scaling 上不同</translation>
    </message>
    <message>
        <source>pack method &apos;%1&apos; is not one of Quark&apos;s: reorder, order</source>
        <translation>打包方法“%1”不是 Quark 的可选值：reorder、order</translation>
    </message>
    <message>
        <source>a Quantscope recipe holds weight specs only; activations &apos;%1&apos; cannot be written to it</source>
        <translation>Quantscope 配方只含权重规格；无法写入激活“%1”</translation>
    </message>
    <message>
        <source>unknown export format</source>
        <translation>未知的导出格式</translation>
    </message>
    <message>
        <source>cannot write the export</source>
        <translation>无法写入导出文件</translation>
    </message>
    <message>
        <source>writing the export failed</source>
        <translation>写入导出文件失败</translation>
    </message>
    <message>
        <source>cannot rename the export into place</source>
        <translation>无法将导出文件重命名到目标位置</translation>
    </message>
    <message>
        <source>%1: compressed-tensors float-quantized holds FP8 E4M3 (this is %2)</source>
        <translation>%1：compressed-tensors 的 float-quantized 只容纳 FP8 E4M3（此处为 %2）</translation>
    </message>
    <message>
        <source>%1: the pack-quantized writer takes INT group or per-output-channel results</source>
        <translation>%1：pack-quantized 写出器只接受按组或按输出通道的 INT 结果</translation>
    </message>
    <message>
        <source>%1: the result holds no codes</source>
        <translation>%1：结果中没有码值</translation>
    </message>
    <message>
        <source>Quark pack_method &apos;%1&apos;: &apos;reorder&apos; or &apos;order&apos; is written</source>
        <translation>Quark pack_method“%1”：只写出 &apos;reorder&apos; 或 &apos;order&apos;</translation>
    </message>
    <message>
        <source>%1: Quark&apos;s real_quantized INT4 layout holds INT4 per output channel or per group along K, and ProgressiveSpec FP8 → INT4 per channel (this is %2, %3 bits, %4)</source>
        <translation>%1：Quark 的 real_quantized INT4 布局只容纳按输出通道或沿 K 分组的 INT4，以及 ProgressiveSpec FP8 → 按通道 INT4（此处为 %2，%3 位，%4）</translation>
    </message>
    <message>
        <source>%1: ProgressiveSpec is written with one FP8 per-tensor stage-1 scale</source>
        <translation>%1：ProgressiveSpec 以一个按张量的 FP8 第一阶段缩放写出</translation>
    </message>
    <message>
        <source>%1: the layout has one scheme per checkpoint — give one catch-all rule (&apos;*&apos;) with one FP8 block spec and no overrides</source>
        <translation>%1：该布局每个检查点只有一个方案——请给出一条兜底规则（“*”），含一个 FP8 块规格且不带覆盖设置</translation>
    </message>
    <message>
        <source>%1: the FP8 block layout holds FP8 E4M3 per square block (method fp8, granularity block)</source>
        <translation>%1：FP8 块布局只容纳按方块的 FP8 E4M3（方法 fp8，粒度 block）</translation>
    </message>
    <message>
        <source>%1: activations fp8-static — the layout keeps no input scales (dynamic only)</source>
        <translation>%1：激活 fp8-static——该布局不保存输入缩放（仅动态）</translation>
    </message>
    <message>
        <source>%1: exclude &apos;%2&apos; is a %3 pattern; modules_to_not_convert takes exact module names</source>
        <translation>%1：exclude“%2”是 %3 模式；modules_to_not_convert 只接受精确的模块名</translation>
    </message>
    <message>
        <source>run `quantscope-cli decode %1 --tensor %2 --out w.npy` first, or pass the module name &apos;%3&apos; to quantize its decoded weights</source>
        <translation>请先运行 `quantscope-cli decode %1 --tensor %2 --out w.npy`，或传入模块名“%3”以量化其解码后的权重</translation>
    </message>
    <message>
        <source>is the %1 of the quantized module &apos;%2&apos; (%3, %4), not weights; %5</source>
        <translation>是量化模块“%2”（%3，%4）的 %1，不是权重；%5</translation>
    </message>
    <message>
        <source>belongs to a quantized module that cannot be decoded (%1); its stored parts are not weights</source>
        <translation>属于无法解码的量化模块（%1）；其存储的部件不是权重</translation>
    </message>
    <message>
        <source>is stored as %1: integer codes (a packed or quantized tensor, scheme not detected), not weights; %2</source>
        <translation>以 %1 存储：是整数码值（打包或量化的张量，未识别出方案），不是权重；%2</translation>
    </message>
    <message>
        <source>decoded %1 (%2, %3) to FP32 first</source>
        <translation>已先将 %1（%2，%3）解码为 FP32</translation>
    </message>
    <message>
        <source>the native layout stores codes and scales; %1 results are packed ggml blocks and are not saved (decode or compare Ŵ instead)</source>
        <translation>原生布局存储码值和缩放；%1 结果是打包的 ggml 块，不会保存（请改为解码或比较 Ŵ）</translation>
    </message>
    <message>
        <source>NumPy has no dtype for %1</source>
        <translation>NumPy 没有对应 %1 的 dtype</translation>
    </message>
    <message>
        <source>weight_scale_inv beside a %1 weight; FP8 block checkpoints store F8_E4M3</source>
        <translation>weight_scale_inv 旁是 %1 权重；FP8 块检查点存储的是 F8_E4M3</translation>
    </message>
    <message>
        <source>weight is %1; FP8 block weights are [N, K]</source>
        <translation>权重为 %1；FP8 块权重应为 [N, K]</translation>
    </message>
    <message>
        <source>FP8 block scales (%1) but config.json gives no quantization_config.weight_block_size; the block size is never derived from shapes</source>
        <translation>有 FP8 块缩放（%1），但 config.json 未给出 quantization_config.weight_block_size；块大小从不由形状推导</translation>
    </message>
    <message>
        <source>weight_scale_inv has dtype %1; F32 expected</source>
        <translation>weight_scale_inv 的 dtype 为 %1；应为 F32</translation>
    </message>
    <message>
        <source>native module %1: %2</source>
        <translation>原生模块 %1：%2</translation>
    </message>
    <message>
        <source>the file has no quantscope-native metadata</source>
        <translation>文件没有 quantscope-native 元数据</translation>
    </message>
    <message>
        <source>layout version %1 (this build reads %2; quantize --save it again)</source>
        <translation>布局版本 %1（此版本读取 %2；请用 quantize --save 重新保存）</translation>
    </message>
    <message>
        <source>not listed in the metadata</source>
        <translation>元数据中未列出</translation>
    </message>
    <message>
        <source>unknown granularity &apos;%1&apos;</source>
        <translation>未知粒度“%1”</translation>
    </message>
    <message>
        <source>no layout in the metadata</source>
        <translation>元数据中没有布局</translation>
    </message>
    <message>
        <source>%1 &apos;%2&apos; is not a dtype of the native layout</source>
        <translation>%1“%2”不是原生布局的 dtype</translation>
    </message>
    <message>
        <source>the part %1 is missing</source>
        <translation>缺少部件 %1</translation>
    </message>
    <message>
        <source>%1 holds %2 elements, %3 expected</source>
        <translation>%1 含 %2 个元素，应为 %3</translation>
    </message>
    <message>
        <source>compensator format &apos;%1&apos; with group %2</source>
        <translation>补偿器格式“%1”，组 %2</translation>
    </message>
    <message>
        <source>float zero points (%1)</source>
        <translation>浮点零点（%1）</translation>
    </message>
    <message>
        <source>rank-%1 compensator U·V (%2)</source>
        <translation>秩 %1 的补偿器 U·V（%2）</translation>
    </message>
    <message>
        <source>%1 %2x%3 (grid %4x%5) does not describe the tensor&apos;s %6 elements</source>
        <translation>%1 %2×%3（网格 %4×%5）与张量的 %6 个元素不符</translation>
    </message>
    <message>
        <source>%1: its groups do not fit its scale grid of %2x%3</source>
        <translation>%1：其分组与 %2×%3 的缩放网格不符</translation>
    </message>
    <message>
        <source>the spec&apos;s method is not the module&apos;s method &apos;%1&apos;</source>
        <translation>规格的方法不是模块的方法“%1”</translation>
    </message>
    <message>
        <source>%1 without its outer scales (outer_layout)</source>
        <translation>%1 缺少外层缩放（outer_layout）</translation>
    </message>
    <message>
        <source>the compensators are not U [%1, rank] and V [rank, %2] of rank %3</source>
        <translation>补偿器不是秩为 %3 的 U [%1, rank] 和 V [rank, %2]</translation>
    </message>
    <message>
        <source>source_dtype &apos;%1&apos;</source>
        <translation>source_dtype“%1”无效</translation>
    </message>
    <message>
        <source>the layout %1x%2 does not cover the shape %3</source>
        <translation>布局 %1×%2 不能覆盖形状 %3</translation>
    </message>
    <message>
        <source>qs_codes is %1, the metadata says %2</source>
        <translation>qs_codes 为 %1，而元数据为 %2</translation>
    </message>
    <message>
        <source>bad metadata: %1</source>
        <translation>元数据错误：%1</translation>
    </message>
    <message>
        <source>session: missing &apos;%1&apos;</source>
        <translation>会话：缺少“%1”</translation>
    </message>
    <message>
        <source>session: &apos;%1&apos; must hold integers in range, got %2</source>
        <translation>会话：“%1”必须是范围内的整数，实际为 %2</translation>
    </message>
    <message>
        <source>session: &apos;%1&apos; has the wrong type</source>
        <translation>会话：“%1”类型错误</translation>
    </message>
    <message>
        <source>not a Quantscope session (no &quot;format&quot;: &quot;quantscope-session&quot;)</source>
        <translation>不是 Quantscope 会话（没有 &quot;format&quot;: &quot;quantscope-session&quot;）</translation>
    </message>
    <message>
        <source>session version %1 is newer than this Quantscope reads (%2)</source>
        <translation>会话版本 %1 比此 Quantscope 可读取的版本（%2）更新</translation>
    </message>
    <message>
        <source>session: scan.lines must be an array</source>
        <translation>会话：scan.lines 必须是数组</translation>
    </message>
    <message>
        <source>cannot open the session</source>
        <translation>无法打开会话</translation>
    </message>
    <message>
        <source>cannot read the session</source>
        <translation>无法读取会话</translation>
    </message>
    <message>
        <source>not a Quantscope session (not valid JSON)</source>
        <translation>不是 Quantscope 会话（不是有效的 JSON）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a number</source>
        <translation>“%1”不是数字</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has the wrong type</source>
        <translation>“%1”类型错误</translation>
    </message>
    <message>
        <source>&apos;%1&apos; must hold integers in range, got %2</source>
        <translation>“%1”必须是范围内的整数，实际为 %2</translation>
    </message>
    <message>
        <source>%1 needs %2 MiB, more than the memory limit of %3 MiB (this machine&apos;s memory, or QUANTSCOPE_MEMORY_LIMIT_MB); refused before allocating</source>
        <translation>%1 需要 %2 MiB，超过 %3 MiB 的内存上限（本机内存或 QUANTSCOPE_MEMORY_LIMIT_MB）；已在分配前拒绝</translation>
    </message>
    <message>
        <source>a mapped file</source>
        <translation>一个映射文件</translation>
    </message>
    <message>
        <source>the file was truncated or replaced while it was read (bus error reading its mapping)</source>
        <translation>文件在读取期间被截断或替换（读取其映射时发生总线错误）</translation>
    </message>
    <message>
        <source>cannot create a pipe: %1</source>
        <translation>无法创建管道：%1</translation>
    </message>
    <message>
        <source>no program to run</source>
        <translation>没有要运行的程序</translation>
    </message>
    <message>
        <source>cannot start &apos;%1&apos;: %2</source>
        <translation>无法启动“%1”：%2</translation>
    </message>
    <message>
        <source>cannot create folder: %1</source>
        <translation>无法创建文件夹：%1</translation>
    </message>
    <message>
        <source>demo checkpoint, seed %1, generated in code</source>
        <translation>演示检查点，种子 %1，由代码生成</translation>
    </message>
    <message>
        <source>weight_packed U8 (FP4 pairs) without weight_scale: the scales are missing</source>
        <translation>weight_packed U8（FP4 对）没有 weight_scale：缺少缩放</translation>
    </message>
    <message>
        <source>weight_packed U8 holds FP4 pairs, but %1 says %2 %3 bits</source>
        <translation>weight_packed U8 存放的是 FP4 对，但 %1 声明为 %2 %3 位</translation>
    </message>
    <message>
        <source>weight_packed is %1; FP4 pairs are [N, K/2]</source>
        <translation>weight_packed 为 %1；FP4 对应为 [N, K/2]</translation>
    </message>
    <message>
        <source>weight_scale has dtype %1; NVFP4 uses F8_E4M3</source>
        <translation>weight_scale 的 dtype 为 %1；NVFP4 使用 F8_E4M3</translation>
    </message>
    <message>
        <source>NVFP4 weight without weight_global_scale: the global scale is missing</source>
        <translation>NVFP4 权重没有 weight_global_scale：缺少全局缩放</translation>
    </message>
    <message>
        <source>weight_scale has dtype %1; MXFP4 uses U8 (E8M0 exponents)</source>
        <translation>weight_scale 的 dtype 为 %1；MXFP4 使用 U8（E8M0 指数）</translation>
    </message>
    <message>
        <source>weight_global_scale is %1; one float is expected</source>
        <translation>weight_global_scale 为 %1；应为一个浮点数</translation>
    </message>
    <message>
        <source>NVFP4 (group 16)</source>
        <translation>NVFP4（组 16）</translation>
    </message>
    <message>
        <source>MXFP4 (group 32)</source>
        <translation>MXFP4（组 32）</translation>
    </message>
    <message>
        <source>quantized %1 weight (%2) without weight_scale: the scales are missing</source>
        <translation>量化的 %1 权重（%2）没有 weight_scale：缺少缩放</translation>
    </message>
    <message>
        <source>weight is %1, but %2 says type %3</source>
        <translation>权重为 %1，但 %2 声明类型为 %3</translation>
    </message>
    <message>
        <source>the weight is stored unpacked (%1), but %2 says format &apos;%3&apos;: read as stored (compressed-tensors decides per module)</source>
        <translation>权重以未打包形式存储（%1），但 %2 声明格式为“%3”：按存储形式读取（compressed-tensors 按模块决定）</translation>
    </message>
    <message>
        <source>weight is %1; [N, K] or [E, N, K] expected</source>
        <translation>权重为 %1；应为 [N, K] 或 [E, N, K]</translation>
    </message>
    <message>
        <source>weight_scale has dtype %1; a float dtype is expected</source>
        <translation>weight_scale 的 dtype 为 %1；应为浮点 dtype</translation>
    </message>
    <message>
        <source>weight_scale %1 does not start with the experts of the weight</source>
        <translation>weight_scale %1 的首维不是权重的专家数</translation>
    </message>
    <message>
        <source>asymmetric quantization (%1) but weight_zero_point is missing</source>
        <translation>非对称量化（%1），但缺少 weight_zero_point</translation>
    </message>
    <message>
        <source>weight_zero_point %1 does not match the scale grid %2</source>
        <translation>weight_zero_point %1 与缩放网格 %2 不匹配</translation>
    </message>
    <message>
        <source>weight_zero_point present although the config says symmetric; ignored</source>
        <translation>配置声明为对称，却存在 weight_zero_point；已忽略</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-tensor quantization (%3) needs one scale; broadcasting it would have applied %4 different scales to one tensor</source>
        <translation>%1 的形状为 %2，但按张量量化（%3）只需一个缩放；广播会对同一张量应用 %4 个不同的缩放</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-channel quantization (%3) of N = %4 rows needs [%5, 1]; broadcasting it would not give one scale per output row</source>
        <translation>%1 的形状为 %2，但 N = %4 行的按通道量化（%3）需要 [%5, 1]；广播无法为每个输出行给出一个缩放</translation>
    </message>
    <message>
        <source>group quantization in %1 without a positive group_size</source>
        <translation>%1 中的分组量化没有正的 group_size</translation>
    </message>
    <message>
        <source>%1 has shape %2, but group %3 along K = %4 (%5) needs [%6, %7]</source>
        <translation>%1 的形状为 %2，但沿 K = %4 的组 %3（%5）需要 [%6, %7]</translation>
    </message>
    <message>
        <source>%1; broadcasting it would have applied each scale to %2 columns instead of %3</source>
        <translation>%1；广播会把每个缩放应用于 %2 列而不是 %3 列</translation>
    </message>
    <message>
        <source>block quantization in %1 without a block_structure</source>
        <translation>%1 中的块量化没有 block_structure</translation>
    </message>
    <message>
        <source>%1 has shape %2, but blocks %3x%4 of a [%5, %6] weight (%7) need %8</source>
        <translation>%1 的形状为 %2，但 [%5, %6] 权重的 %3×%4 块（%7）需要 %8</translation>
    </message>
    <message>
        <source>strategy &apos;%1&apos; in %2 is not supported for weights</source>
        <translation>%2 中的策略“%1”不支持用于权重</translation>
    </message>
    <message>
        <source>%1 has shape %2: K = %3 is not a multiple of %4 groups, so the group size cannot be inferred; config.json&apos;s quantization_config is needed</source>
        <translation>%1 的形状为 %2：K = %3 不是 %4 个组的倍数，因此无法推断组大小；需要 config.json 的 quantization_config</translation>
    </message>
    <message>
        <source>%1 has shape %2, which is not [N, groups] for N = %3; a block grid needs its block size from config.json (never derived from shapes)</source>
        <translation>%1 的形状为 %2，对 N = %3 而言不是 [N, groups]；块网格的块大小须来自 config.json（从不由形状推导）</translation>
    </message>
    <message>
        <source>%1 has shape %2, which fits no per-tensor, per-channel or group layout of a [%3, %4] weight</source>
        <translation>%1 的形状为 %2，不符合 [%3, %4] 权重的按张量、按通道或按组的任何布局</translation>
    </message>
    <message>
        <source>weight_shape is %1 %2; an integer vector [rank] is expected</source>
        <translation>weight_shape 为 %1 %2；应为整数向量 [rank]</translation>
    </message>
    <message>
        <source>weight_shape %1 has a negative entry</source>
        <translation>weight_shape %1 含有负数条目</translation>
    </message>
    <message>
        <source>%1: %2 INT%3 codes in %4 words fit both the dense layout and the older 32/b-per-word layout, which differ here; the layout is ambiguous and refused</source>
        <translation>%1：%4 个字中的 %2 个 INT%3 码值既符合稠密布局，也符合旧的每字 32/b 布局，而两者在此不同；布局有歧义，已拒绝</translation>
    </message>
    <message>
        <source>weight_packed is %1; [N, words] or [E, N, words] expected</source>
        <translation>weight_packed 为 %1；应为 [N, words] 或 [E, N, words]</translation>
    </message>
    <message>
        <source>weight_packed without weight_scale: the scales are missing</source>
        <translation>weight_packed 没有 weight_scale：缺少缩放</translation>
    </message>
    <message>
        <source>weight_packed without weight_shape: K cannot be known exactly from the word count</source>
        <translation>weight_packed 没有 weight_shape：无法由字数精确得知 K</translation>
    </message>
    <message>
        <source>weight_packed I32 holds INT codes, but %1 says type float</source>
        <translation>weight_packed I32 存放的是 INT 码值，但 %1 声明类型为 float</translation>
    </message>
    <message>
        <source>the tensors are pack-quantized, but %1 says format &apos;%2&apos;: read as pack-quantized (compressed-tensors decides per module)</source>
        <translation>张量为 pack-quantized，但 %1 声明格式为“%2”：按 pack-quantized 读取（compressed-tensors 按模块决定）</translation>
    </message>
    <message>
        <source>weight_shape %1 has rank %2, weight_packed %3 rank %4</source>
        <translation>weight_shape %1 的秩为 %2，而 weight_packed %3 的秩为 %4</translation>
    </message>
    <message>
        <source>weight_shape %1 lies: K = %2 codes cannot fit in the %3 I32 words of each row of weight_packed %4</source>
        <translation>weight_shape %1 有误：K = %2 个码值放不进 weight_packed %4 每行的 %3 个 I32 字</translation>
    </message>
    <message>
        <source>weight_shape %1 lies: weight_packed holds %2 experts</source>
        <translation>weight_shape %1 有误：weight_packed 含 %2 个专家</translation>
    </message>
    <message>
        <source>weight_shape %1 lies: weight_packed %2 holds %3 rows</source>
        <translation>weight_shape %1 有误：weight_packed %2 含 %3 行</translation>
    </message>
    <message>
        <source>%1 says num_bits %2; pack-quantized holds 1..8</source>
        <translation>%1 声明 num_bits 为 %2；pack-quantized 只容纳 1..8</translation>
    </message>
    <message>
        <source>weight_shape %1 and %2 words per row fit no bit width 1..8; config.json&apos;s quantization_config is needed to know num_bits</source>
        <translation>weight_shape %1 与每行 %2 个字不符合任何 1..8 的位宽；需要 config.json 的 quantization_config 才能得知 num_bits</translation>
    </message>
    <message>
        <source>weight_shape %1 and %2 words per row fit bit widths {%3}; config.json&apos;s quantization_config is needed to know num_bits</source>
        <translation>weight_shape %1 与每行 %2 个字符合位宽 {%3}；需要 config.json 的 quantization_config 才能得知 num_bits</translation>
    </message>
    <message>
        <source>weight_shape %1 lies or the pack layout is unknown: K = %2 INT%3 codes need %4 words (dense) or %5 (32/b per word), weight_packed has %6</source>
        <translation>weight_shape %1 有误或打包布局未知：K = %2 个 INT%3 码值需要 %4 个字（稠密）或 %5 个（每字 32/b），而 weight_packed 有 %6 个</translation>
    </message>
    <message>
        <source>weight_scale %1 does not start with the %2 experts of weight_packed</source>
        <translation>weight_scale %1 的首维不是 weight_packed 的 %2 个专家</translation>
    </message>
    <message>
        <source>weight_zero_point present although %1 says symmetric; it is ignored (as compressed-tensors does)</source>
        <translation>%1 声明为对称，却存在 weight_zero_point；已忽略（与 compressed-tensors 一致）</translation>
    </message>
    <message>
        <source>weight_zero_point has dtype %1; integer zero points are expected</source>
        <translation>weight_zero_point 的 dtype 为 %1；应为整数零点</translation>
    </message>
    <message>
        <source>weight_zero_point %1 does not start with the experts</source>
        <translation>weight_zero_point %1 的首维不是专家数</translation>
    </message>
    <message>
        <source>weight_zero_point %1 does not match the scale grid [%2, %3] packed along dim 0</source>
        <translation>weight_zero_point %1 与沿第 0 维打包的缩放网格 [%2, %3] 不匹配</translation>
    </message>
    <message>
        <source>weight_zero_point %1: %2 packed INT%3 zero points need %4 I32 rows in the weight&apos;s layout (or %5 raw ones)</source>
        <translation>weight_zero_point %1：%2 个打包的 INT%3 零点在权重布局中需要 %4 行 I32（或 %5 行未打包的）</translation>
    </message>
    <message>
        <source>weight_g_idx is %1; I32 [K = %2] expected</source>
        <translation>weight_g_idx 为 %1；应为 I32 [K = %2]</translation>
    </message>
    <message>
        <source>weight_g_idx given for a %1 scheme; activation order needs groups</source>
        <translation>为 %1 方案给出了 weight_g_idx；激活顺序需要分组</translation>
    </message>
    <message>
        <source>weight_g_idx[%1] = %2 is outside the %3 groups</source>
        <translation>weight_g_idx[%1] = %2 超出 %3 个组</translation>
    </message>
    <message>
        <source>K = %1 (config.json &apos;%2&apos;) is padded to %3 in the packed words (Quark pads to a multiple of 8); the padding is dropped</source>
        <translation>K = %1（config.json“%2”）在打包字中被填充到 %3（Quark 填充到 8 的倍数）；已丢弃填充部分</translation>
    </message>
    <message>
        <source>the packed rows hold %1 codes and config.json names no dimension between %2 and %3: read as K = %4; any padding Quark added is included</source>
        <translation>打包行含 %1 个码值，而 config.json 在 %2 与 %3 之间没有给出任何维度：按 K = %4 读取；Quark 添加的填充也包含在内</translation>
    </message>
    <message>
        <source>the packed rows hold %1 codes and config.json names several dimensions between %2 and %3: read as K = %4; any padding Quark added is included</source>
        <translation>打包行含 %1 个码值，而 config.json 在 %2 与 %3 之间给出了多个维度：按 K = %4 读取；Quark 添加的填充也包含在内</translation>
    </message>
    <message>
        <source>two-stage Quark weight without weight_scale (the stage-1 FP8 scale s1)</source>
        <translation>两阶段 Quark 权重没有 weight_scale（第一阶段 FP8 缩放 s1）</translation>
    </message>
    <message>
        <source>packed INT4 weight without %1: the scales are missing</source>
        <translation>打包的 INT4 权重没有 %1：缺少缩放</translation>
    </message>
    <message>
        <source>weight_scale (stage-1 s1) is %1; the FP8 per-tensor stage has one scale ([1] or a scalar)</source>
        <translation>weight_scale（第一阶段 s1）为 %1；按张量的 FP8 阶段只有一个缩放（[1] 或标量）</translation>
    </message>
    <message>
        <source>stage 1 qscheme &apos;%1&apos; in %2 is not supported (per_tensor FP8 is read)</source>
        <translation>不支持 %2 中第一阶段的 qscheme“%1”（可读取 per_tensor FP8）</translation>
    </message>
    <message>
        <source>weight I32 is %1; packed INT4 [rows, words] expected</source>
        <translation>I32 权重为 %1；应为打包的 INT4 [rows, words]</translation>
    </message>
    <message>
        <source>weight I32 with Quark dtype &apos;%1&apos; (%2); int4 and uint4 packed in int32 are read</source>
        <translation>I32 权重的 Quark dtype 为“%1”（%2）；只读取打包于 int32 的 int4 和 uint4</translation>
    </message>
    <message>
        <source>unknown pack layout: export.pack_method &apos;%1&apos; (Quark writes &apos;reorder&apos; or &apos;order&apos;)</source>
        <translation>未知的打包布局：export.pack_method“%1”（Quark 写出 &apos;reorder&apos; 或 &apos;order&apos;）</translation>
    </message>
    <message>
        <source>%1 has dtype %2; a float dtype is expected</source>
        <translation>%1 的 dtype 为 %2；应为浮点 dtype</translation>
    </message>
    <message>
        <source>%1 %2: a Quark per-group scale is stored transposed, [groups, N]</source>
        <translation>%1 %2：Quark 的按组缩放以转置形式 [groups, N] 存储</translation>
    </message>
    <message>
        <source>weight %1 holds %2 outputs per row after the per-group transpose, %3 %4 has %5</source>
        <translation>按组转置后权重 %1 每行有 %2 个输出，而 %3 %4 有 %5 个</translation>
    </message>
    <message>
        <source>N = %1 is padded to %2 in the packed words (Quark pads to a multiple of 8); the padding is dropped</source>
        <translation>N = %1 在打包字中被填充到 %2（Quark 填充到 8 的倍数）；已丢弃填充部分</translation>
    </message>
    <message>
        <source>%1 %2: K = %3 is not a multiple of the groups; the group size needs the config</source>
        <translation>%1 %2：K = %3 不是组数的倍数；组大小需要由配置给出</translation>
    </message>
    <message>
        <source>%1 %2, but group %3 along K = %4 (%5) needs [%6, %7] (transposed)</source>
        <translation>%1 %2，但沿 K = %4 的组 %3（%5）需要 [%6, %7]（转置）</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-channel quantization of a weight with N = %3 rows needs [%4]; broadcasting it would not give one scale per row</source>
        <translation>%1 的形状为 %2，但 N = %3 行权重的按通道量化需要 [%4]；广播无法为每行给出一个缩放</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-tensor quantization needs one scale</source>
        <translation>%1 的形状为 %2，但按张量量化只需一个缩放</translation>
    </message>
    <message>
        <source>Quark qscheme &apos;%1&apos; is not supported for packed INT4 weights</source>
        <translation>打包的 INT4 权重不支持 Quark qscheme“%1”</translation>
    </message>
    <message>
        <source>%1 has dtype %2; integer zero points are expected</source>
        <translation>%1 的 dtype 为 %2；应为整数零点</translation>
    </message>
    <message>
        <source>%1 %2 fits neither the packed zero points (%3 words) nor one per scale (%4)</source>
        <translation>%1 %2 既不符合打包零点（%3 个字），也不符合每个缩放一个零点（%4）</translation>
    </message>
    <message>
        <source>asymmetric quantization (%1) but the zero point is missing</source>
        <translation>非对称量化（%1），但缺少零点</translation>
    </message>
    <message>
        <source>%1 sym</source>
        <translation>%1 对称</translation>
    </message>
    <message>
        <source>%1 asym</source>
        <translation>%1 非对称</translation>
    </message>
    <message>
        <source>per tensor</source>
        <translation>按张量</translation>
    </message>
    <message>
        <source>per channel</source>
        <translation>按通道</translation>
    </message>
    <message>
        <source>group %1 along K</source>
        <translation>沿 K 分组 %1</translation>
    </message>
    <message>
        <source>block %1x%2</source>
        <translation>块 %1×%2</translation>
    </message>
    <message>
        <source>c-t packing</source>
        <translation>c-t 打包</translation>
    </message>
    <message>
        <source>c-t legacy packing (32/b per word)</source>
        <translation>c-t 旧式打包（每字 32/b）</translation>
    </message>
    <message>
        <source>Quark reorder packing</source>
        <translation>Quark reorder 打包</translation>
    </message>
    <message>
        <source>Quark order packing</source>
        <translation>Quark order 打包</translation>
    </message>
    <message>
        <source>FP4 pairs low nibble first</source>
        <translation>FP4 对，低半字节在前</translation>
    </message>
    <message>
        <source>nibble pairs low first</source>
        <translation>半字节对，低位在前</translation>
    </message>
    <message>
        <source>%1 (assumed: no pack_method in config)</source>
        <translation>%1（推定：配置中没有 pack_method）</translation>
    </message>
    <message>
        <source>transposed [K, N/8]</source>
        <translation>转置 [K, N/8]</translation>
    </message>
    <message>
        <source>act-order g_idx</source>
        <translation>激活顺序 g_idx</translation>
    </message>
    <message>
        <source>%1 scales</source>
        <translation>%1 缩放</translation>
    </message>
    <message>
        <source>%1 inverse scales</source>
        <translation>%1 倒数缩放</translation>
    </message>
    <message>
        <source>%1 scales / F32 global scale</source>
        <translation>%1 缩放 / F32 全局缩放</translation>
    </message>
    <message>
        <source>%1 inverse scales / F32 global scale</source>
        <translation>%1 倒数缩放 / F32 全局缩放</translation>
    </message>
    <message>
        <source>two-stage s1·(s2·(q−z2)) with FP8 per-tensor s1</source>
        <translation>两阶段 s1·(s2·(q−z2))，s1 为按张量 FP8</translation>
    </message>
    <message>
        <source>weight_packed has dtype %1; I32 (packed INT) or U8 (FP4 pairs) expected</source>
        <translation>weight_packed 的 dtype 为 %1；应为 I32（打包 INT）或 U8（FP4 对）</translation>
    </message>
    <message>
        <source>the config excludes/ignores this module, but its tensors are quantized; read as stored</source>
        <translation>配置排除/忽略了此模块，但其张量已量化；按存储形式读取</translation>
    </message>
</context>
<context>
    <name>quantscope::DistributionView</name>
    <message>
        <source>The tensor shown (every tensor of the last run)</source>
        <translation>显示的张量（上次运行的所有张量）</translation>
    </message>
    <message>
        <source>The configuration whose overlap with W is shaded</source>
        <translation>以阴影显示其与 W 重叠的配置</translation>
    </message>
    <message>
        <source>Input channels</source>
        <translation>输入通道</translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation>输出通道</translation>
    </message>
    <message>
        <source>Channel maxima per column (input channel, what activation outliers hit) or per row (output channel, what per-channel scales see)</source>
        <translation>逐列（输入通道，激活离群值所在）或逐行（输出通道，逐通道缩放因子所见）的通道最大值</translation>
    </message>
    <message>
        <source>&amp;Log counts</source>
        <translation>对数计数(&amp;L)</translation>
    </message>
    <message>
        <source>Logarithmic count axis: the tails, where the error lives, stay visible</source>
        <translation>对数计数轴：误差所在的尾部保持可见</translation>
    </message>
    <message>
        <source>Tensor:</source>
        <translation>张量：</translation>
    </message>
    <message>
        <source>Shade:</source>
        <translation>阴影：</translation>
    </message>
    <message>
        <source>Ch.</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>max |w|</source>
        <translation>最大 |w|</translation>
    </message>
    <message>
        <source>× med.</source>
        <translation>× 中位</translation>
    </message>
    <message>
        <source>act. |x|</source>
        <translation>激活 |x|</translation>
    </message>
    <message>
        <source>Channel index</source>
        <translation>通道索引</translation>
    </message>
    <message>
        <source>How many times larger than the median channel&apos;s maximum</source>
        <translation>是中位通道最大值的多少倍</translation>
    </message>
    <message>
        <source>The paired activation&apos;s maximum in the same input channel</source>
        <translation>配对激活在同一输入通道中的最大值</translation>
    </message>
    <message>
        <source>The channels with the largest maxima: they set the scale of every group they are in</source>
        <translation>最大值最大的通道：它们决定所在每个分组的缩放因子</translation>
    </message>
    <message>
        <source>No tensor in the results.</source>
        <translation>结果中没有张量。</translation>
    </message>
    <message>
        <source>Select tensors in the browser and press Run to see how each configuration changes their values.</source>
        <translation>在浏览器中选择张量并点击运行，即可查看每种配置如何改变其数值。</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 失败：%2</translation>
    </message>
    <message>
        <source>%1: overlap %2, rel. error %3, %4 bits/element</source>
        <translation>%1：重叠度 %2，相对误差 %3，每元素 %4 位</translation>
    </message>
    <message numerus="yes">
        <source> (%n value(s) of Ŵ outside W&apos;s range)</source>
        <translation>
            <numerusform>（Ŵ 中有 %n 个值超出 W 的范围）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>Could not read this tensor: %1</source>
        <translation>无法读取该张量：%1</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1 倍</translation>
    </message>
    <message>
        <source>%1 — stale: its configuration was edited after the run; run again to update</source>
        <translation>%1 — 已过期：运行后配置已被修改；请重新运行以更新</translation>
    </message>
    <message>
        <source>W before any run: mean %1, std %2, min %3, max %4, |max| %5, excess kurtosis %6</source>
        <translation>运行前的 W：均值 %1，标准差 %2，最小值 %3，最大值 %4，|最大值| %5，超额峰度 %6</translation>
    </message>
    <message>
        <source>%1 NaN and %2 infinite values</source>
        <translation>%1 个 NaN 值和 %2 个无穷值</translation>
    </message>
    <message>
        <source>Press Run to see how each configuration changes these values.</source>
        <translation>按“运行”查看每个配置如何改变这些值。</translation>
    </message>
</context>
<context>
    <name>quantscope::ErrorHistogramPlot</name>
    <message>
        <source>error W − Ŵ</source>
        <translation>误差 W − Ŵ</translation>
    </message>
    <message>
        <source>count</source>
        <translation>计数</translation>
    </message>
    <message>
        <source>error %1</source>
        <translation>误差 %1</translation>
    </message>
    <message>
        <source>error ≈ %1</source>
        <translation>误差 ≈ %1</translation>
    </message>
    <message>
        <source>%1: %2 in [%3, %4)</source>
        <translation>%1：%2 位于 [%3, %4)</translation>
    </message>
    <message>
        <source>%1: outside its range</source>
        <translation>%1：超出其范围</translation>
    </message>
</context>
<context>
    <name>quantscope::ExporterPanel</name>
    <message>
        <source>Open recipe…</source>
        <translation>打开配方…</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>保存…</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>Activations:</source>
        <translation>激活：</translation>
    </message>
    <message>
        <source>Export checkpoint…</source>
        <translation>导出检查点…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Checkpoint:</source>
        <translation>检查点：</translation>
    </message>
    <message>
        <source>Wrote %1 (%2 modules quantized)</source>
        <translation>已写入 %1（量化 %2 个模块）</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Export to %1</source>
        <translation>导出到 %1</translation>
    </message>
</context>
<context>
    <name>quantscope::GemmTimingPlot</name>
    <message>
        <source>batch size M (tokens)</source>
        <translation>批大小 M（词元）</translation>
    </message>
    <message>
        <source>time (µs)</source>
        <translation>时间（µs）</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>%1, M %2: %3 µs, %4 TFLOP/s</source>
        <translation>%1，M %2：%3 µs，%4 TFLOP/s</translation>
    </message>
    <message>
        <source>ran padded to M = %1</source>
        <translation>以填充后的 M = %1 运行</translation>
    </message>
</context>
<context>
    <name>quantscope::GemmTimingView</name>
    <message>
        <source>The weight whose N×K is timed (one of the selected tensors)</source>
        <translation>计时其 N×K 的权重（所选张量之一）</translation>
    </message>
    <message>
        <source>M up to %1</source>
        <translation>M 最大 %1</translation>
    </message>
    <message>
        <source>Time GEMMs</source>
        <translation>GEMM 计时</translation>
    </message>
    <message>
        <source>W3 rank </source>
        <translation>W3 秩 </translation>
    </message>
    <message>
        <source>Rank r of the MiLo compensator timed with the W3A16 GEMM (0: the W3 GEMM alone)</source>
        <translation>与 W3A16 GEMM 一起计时的 MiLo 补偿器的秩 r（0：仅 W3 GEMM）</translation>
    </message>
    <message>
        <source>%1 not timed: %2</source>
        <translation>%1 未计时：%2</translation>
    </message>
    <message>
        <source>Select a tensor and press Time GEMMs.</source>
        <translation>选择一个张量并点击“GEMM 计时”。</translation>
    </message>
    <message>
        <source>Select a tensor in the Tensors dock.</source>
        <translation>在张量面板中选择一个张量。</translation>
    </message>
    <message>
        <source>Timing GEMMs of %1</source>
        <translation>正在为 %1 计时 GEMM</translation>
    </message>
    <message>
        <source>%1: Y[M,N] = X[M,K]·W[N,K]ᵀ with N = %2, K = %3 on %4</source>
        <translation>%1：Y[M,N] = X[M,K]·W[N,K]ᵀ，N = %2，K = %3，设备 %4</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>The CPU has no BF16, FP8 or INT8 GEMM here: it times FP32 GEMMs of the same shape.</source>
        <translation>此处 CPU 没有 BF16、FP8 或 INT8 GEMM：改为计时相同形状的 FP32 GEMM。</translation>
    </message>
    <message>
        <source>Plain GEMMs</source>
        <translation>普通 GEMM</translation>
    </message>
    <message>
        <source>Quantized-weight paths</source>
        <translation>量化权重路径</translation>
    </message>
    <message>
        <source>MoE: %1 experts</source>
        <translation>MoE：%1 个专家</translation>
    </message>
    <message>
        <source>The quantized-weight paths run on a GPU only.</source>
        <translation>量化权重路径仅在 GPU 上运行。</translation>
    </message>
    <message>
        <source>Roofline (%1): copy %2 GB/s, %3</source>
        <translation>Roofline（%1）：拷贝 %2 GB/s，%3</translation>
    </message>
    <message>
        <source>Some points were faster than the measured ceiling (their operands stay in cache): the ceiling was raised to them, so none is drawn above it.</source>
        <translation>有些点比测得的上限更快（其操作数留在缓存中）：上限已提高到这些点，因此没有点画在上限之上。</translation>
    </message>
</context>
<context>
    <name>quantscope::HealthController</name>
    <message>
        <source>&amp;Health</source>
        <translation>健康检查(&amp;H)</translation>
    </message>
    <message>
        <source>Checkpoint health: every problem of the opened checkpoint in one report</source>
        <translation>检查点健康：一份报告列出已打开检查点的所有问题</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>The check failed: %1</source>
        <translation>检查失败：%1</translation>
    </message>
    <message>
        <source>Health check of %1</source>
        <translation>%1 的健康检查</translation>
    </message>
</context>
<context>
    <name>quantscope::HealthView</name>
    <message>
        <source>Check checkpoint</source>
        <translation>检查检查点</translation>
    </message>
    <message>
        <source>Run the doctor: completeness, quantized modules, scale health, dtype traps, KV scales, duplicates</source>
        <translation>运行诊断：完整性、量化模块、缩放因子健康、数据类型陷阱、KV 缩放因子、重复张量</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>Module / tensor</source>
        <translation>模块 / 张量</translation>
    </message>
    <message>
        <source>File @ byte</source>
        <translation>文件 @ 字节</translation>
    </message>
    <message>
        <source>Explanation</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>info</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Healthy: %1 files, %2 tensors, nothing to report</source>
        <translation>健康：%1 个文件，%2 个张量，无问题</translation>
    </message>
    <message>
        <source>%1 files, %2 tensors: %3 errors, %4 warnings, %5 notes</source>
        <translation>%1 个文件，%2 个张量：%3 个错误，%4 个警告，%5 条提示</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>No checkpoint open: open one (File ▸ Open…), then press Check checkpoint.</source>
        <translation>未打开检查点：先打开一个（文件 ▸ 打开…），再点击“检查检查点”。</translation>
    </message>
    <message>
        <source>%1 is not checked yet: press Check checkpoint for every problem of its files in one report.</source>
        <translation>%1 尚未检查：点击“检查检查点”，在一份报告中查看其文件的所有问题。</translation>
    </message>
</context>
<context>
    <name>quantscope::HistogramPlot</name>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>count</source>
        <translation>计数</translation>
    </message>
    <message>
        <source>overlap W ∩ Ŵ %1</source>
        <translation>重叠度 W ∩ Ŵ %1</translation>
    </message>
    <message>
        <source>W (original)</source>
        <translation>W（原始）</translation>
    </message>
    <message>
        <source>Ŵ %1</source>
        <translation>Ŵ %1</translation>
    </message>
    <message>
        <source>value (symlog bins)</source>
        <translation>数值（symlog 分箱）</translation>
    </message>
    <message>
        <source>bin %1: [%2, %3)</source>
        <translation>分箱 %1：[%2, %3)</translation>
    </message>
    <message>
        <source>W: %1</source>
        <translation>W：%1</translation>
    </message>
    <message>
        <source>Ŵ %1: %2</source>
        <translation>Ŵ %1：%2</translation>
    </message>
    <message>
        <source>shared with %1: %2</source>
        <translation>与 %1 共有：%2</translation>
    </message>
</context>
<context>
    <name>quantscope::JobBoard</name>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>replaced by a newer run</source>
        <translation>已被更新的运行取代</translation>
    </message>
    <message>
        <source>%1: finished in %2 s</source>
        <translation>%1：%2 秒内完成</translation>
    </message>
    <message>
        <source>%1: failed after %2 s: %3</source>
        <translation>%1：%2 秒后失败：%3</translation>
    </message>
    <message>
        <source>%1: cancelled after %2 s</source>
        <translation>%1：%2 秒后已取消</translation>
    </message>
    <message>
        <source>%1: replaced by a newer run after %2 s</source>
        <translation>%1：%2 秒后被更新的运行取代</translation>
    </message>
    <message>
        <source>finished in %1 s</source>
        <translation>%1 秒内完成</translation>
    </message>
    <message>
        <source>failed after %1 s</source>
        <translation>%1 秒后失败</translation>
    </message>
    <message>
        <source>cancelled after %1 s</source>
        <translation>%1 秒后已取消</translation>
    </message>
    <message>
        <source>replaced by a newer run after %1 s</source>
        <translation>%1 秒后被更新的运行取代</translation>
    </message>
</context>
<context>
    <name>quantscope::JobController</name>
    <message>
        <source>Open a checkpoint first</source>
        <translation>请先打开检查点</translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n 1-D tensor(s) (norms, biases); select only them to quantize them.</source>
        <translation>
            <numerusform>已跳过 %n 个一维张量（归一化、偏置）；只选择它们即可量化它们。</numerusform>
        </translation>
    </message>
    <message>
        <source>Select one or more tensors to quantize</source>
        <translation>选择一个或多个要量化的张量</translation>
    </message>
    <message>
        <source>Select one or more tensors in the Tensors dock, then Run.</source>
        <translation>在张量面板中选择一个或多个张量，然后运行。</translation>
    </message>
    <message>
        <source>%1 on %2 failed: %3</source>
        <translation>%1 在 %2 上失败：%3</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>The quantization job failed: %1</source>
        <translation>量化任务失败：%1</translation>
    </message>
    <message>
        <source>Quantization Failed</source>
        <translation>量化失败</translation>
    </message>
    <message>
        <source>The quantization job failed.</source>
        <translation>量化任务失败。</translation>
    </message>
    <message numerus="yes">
        <source>Cancelled; %n finished run(s) are shown as a partial batch.</source>
        <translation>
            <numerusform>已取消；%n 次已完成的运行作为部分批次显示。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled before any run finished.</source>
        <translation>在任何运行完成前已取消。</translation>
    </message>
    <message>
        <source>%1 on tensor %2: %3</source>
        <translation>%1 作用于张量 %2：%3</translation>
    </message>
    <message numerus="yes">
        <source>%n more run(s) like it: marked ⚠ in the Overview</source>
        <translation>
            <numerusform>另有 %n 次类似运行：在总览中以 ⚠ 标记</numerusform>
        </translation>
    </message>
    <message>
        <source>Quantizing %1 × %2</source>
        <translation>正在量化 %1 × %2</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n configuration(s)</source>
        <translation>
            <numerusform>%n 个配置</numerusform>
        </translation>
    </message>
    <message>
        <source>Finished %1 in %2 ms</source>
        <translation>%2 毫秒内完成 %1</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 次运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Finished %1 in %2 s</source>
        <translation>%2 秒内完成 %1</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1；%2</translation>
    </message>
    <message numerus="yes">
        <source>%n failed (see the log)</source>
        <translation>
            <numerusform>%n 个失败（见日志）</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to run: every configuration has its results for the selected tensors.</source>
        <translation>无需运行：每个配置都已有所选张量的结果。</translation>
    </message>
</context>
<context>
    <name>quantscope::JobProgressWidget</name>
    <message>
        <source>No job running.</source>
        <translation>没有正在运行的任务。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the running job (Esc); the runs that finished stay shown</source>
        <translation>停止正在运行的任务（Esc）；已完成的运行保持显示</translation>
    </message>
    <message>
        <source>estimating…</source>
        <translation>正在估算…</translation>
    </message>
    <message>
        <source>less than a second left</source>
        <translation>剩余不到一秒</translation>
    </message>
    <message numerus="yes">
        <source>about %n s left</source>
        <translation>
            <numerusform>大约还剩 %n 秒</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n min left</source>
        <translation>
            <numerusform>大约还剩 %n 分钟</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::JobsView</name>
    <message>
        <source>Job</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>No background job has run yet. Quantizing, scanning, sweeping, exporting, comparing, timing, capturing and evaluating are listed here while they run, each with Cancel, and stay listed with how they ended.</source>
        <translation>尚未运行任何后台任务。量化、扫描、遍历、导出、比较、计时、采集和评估在运行时列于此处，每项都可取消，结束后仍保留其结果。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisChannelPlot</name>
    <message>
        <source>excess kurtosis</source>
        <translation>超额峰度</translation>
    </message>
    <message>
        <source>input channel (column)</source>
        <translation>输入通道（列）</translation>
    </message>
    <message>
        <source>output channel (row)</source>
        <translation>输出通道（行）</translation>
    </message>
    <message>
        <source>channel excess kurtosis, rotated</source>
        <translation>旋转后的通道超额峰度</translation>
    </message>
    <message>
        <source>channel excess kurtosis</source>
        <translation>通道超额峰度</translation>
    </message>
    <message>
        <source>most kurtotic channels</source>
        <translation>峰度最高的通道</translation>
    </message>
    <message>
        <source>channel %1: excess kurtosis %2</source>
        <translation>通道 %1：超额峰度 %2</translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisScatterPlot</name>
    <message>
        <source>relative error ‖W − Ŵ‖ / ‖W‖</source>
        <translation>相对误差 ‖W − Ŵ‖ / ‖W‖</translation>
    </message>
    <message>
        <source>excess kurtosis of W, rotated</source>
        <translation>旋转后 W 的超额峰度</translation>
    </message>
    <message>
        <source>excess kurtosis of W</source>
        <translation>W 的超额峰度</translation>
    </message>
    <message>
        <source>%1
%2: relative error %3, excess kurtosis %4 (rotated %5)</source>
        <translation>%1
%2：相对误差 %3，超额峰度 %4（旋转后 %5）</translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisView</name>
    <message>
        <source>The tensor whose channels are drawn</source>
        <translation>绘制其通道的张量</translation>
    </message>
    <message>
        <source>Input channels</source>
        <translation>输入通道</translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation>输出通道</translation>
    </message>
    <message>
        <source>Hadamard rotation, block</source>
        <translation>Hadamard 旋转，块大小</translation>
    </message>
    <message>
        <source>Show the kurtosis after rotating W along K (both are computed)</source>
        <translation>显示沿 K 旋转 W 后的峰度（两者都会计算）</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>Per-channel kurtosis of the selected tensors</source>
        <translation>所选张量的逐通道峰度</translation>
    </message>
    <message>
        <source>Select one or more tensors in the Tensors dock.</source>
        <translation>在张量面板中选择一个或多个张量。</translation>
    </message>
    <message numerus="yes">
        <source>Kurtosis of %n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量的峰度</numerusform>
        </translation>
    </message>
    <message>
        <source>Select tensors and press Compute: the excess kurtosis of every channel, and each configuration&apos;s error against it.</source>
        <translation>选择张量并点击计算：每个通道的超额峰度，以及每种配置相对于它的误差。</translation>
    </message>
    <message>
        <source>%1: excess kurtosis of W %2</source>
        <translation>%1：W 的超额峰度 %2</translation>
    </message>
    <message>
        <source>, rotated (block %1) %2</source>
        <translation>，旋转后（块 %1）%2</translation>
    </message>
    <message>
        <source>No rotation: %1</source>
        <translation>无旋转：%1</translation>
    </message>
</context>
<context>
    <name>quantscope::KvController</name>
    <message>
        <source>K&amp;V cache</source>
        <translation>K&amp;V 缓存</translation>
    </message>
    <message>
        <source>4-bit KV caches on your keys and values: FP8, codebooks, constOpt FP4, MXFP4, NVFP4, INT4</source>
        <translation>在你的键和值上评估 4 位 KV 缓存：FP8、码本、constOpt FP4、MXFP4、NVFP4、INT4</translation>
    </message>
    <message>
        <source>Open &amp;KV Cache…</source>
        <translation>打开 KV 缓存(&amp;K)…</translation>
    </message>
    <message>
        <source>Study the K/V caches of a capture or of .safetensors/.npz/.npy arrays in the KV cache tab</source>
        <translation>在 KV 缓存标签页中研究采集或 .safetensors/.npz/.npy 数组中的 K/V 缓存</translation>
    </message>
    <message>
        <source>Open KV Cache</source>
        <translation>打开 KV 缓存</translation>
    </message>
    <message>
        <source>K/V caches (*.safetensors *.npz *.npy);;All files (*)</source>
        <translation>K/V 缓存 (*.safetensors *.npz *.npy);;所有文件 (*)</translation>
    </message>
    <message>
        <source>opened file</source>
        <translation>已打开的文件</translation>
    </message>
    <message>
        <source>the paired capture</source>
        <translation>已配对的采集</translation>
    </message>
    <message>
        <source>No K/V cache: pair a capture or open one with File ▸ Open KV Cache….</source>
        <translation>没有 K/V 缓存：请配对一个采集，或通过 文件 ▸ 打开 KV 缓存… 打开一个。</translation>
    </message>
    <message>
        <source>Reading the K/V cache of %1…</source>
        <translation>正在读取 %1 的 K/V 缓存…</translation>
    </message>
    <message numerus="yes">
        <source>Studied %n scheme(s) and the plan in %1 ms.</source>
        <translation>
            <numerusform>已在 %1 ms 内评估 %n 个方案和计划。</numerusform>
        </translation>
    </message>
    <message>
        <source>The KV lab failed: check the file, then press Run again.</source>
        <translation>KV 实验失败：请检查文件，然后再次点击运行。</translation>
    </message>
    <message>
        <source>Cancelled; the last report stays shown. Press Run to start again.</source>
        <translation>已取消；上一次的报告仍然显示。点击运行重新开始。</translation>
    </message>
    <message>
        <source>Cancelled. Press Run to start again.</source>
        <translation>已取消。点击运行重新开始。</translation>
    </message>
    <message>
        <source>Running every KV scheme on every layer and head…</source>
        <translation>正在每一层、每个头上运行每个 KV 方案…</translation>
    </message>
    <message>
        <source>KV lab on %1</source>
        <translation>%1 上的 KV 实验</translation>
    </message>
</context>
<context>
    <name>quantscope::KvPlot</name>
    <message>
        <source>scale constant c (rotated keys)</source>
        <translation>缩放常数 c（旋转后的键）</translation>
    </message>
    <message>
        <source>K MSE</source>
        <translation>K 的 MSE</translation>
    </message>
    <message>
        <source>scale constant c</source>
        <translation>缩放常数 c</translation>
    </message>
    <message>
        <source>MSE per coordinate</source>
        <translation>每个坐标的 MSE</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>excess kurtosis of K</source>
        <translation>K 的超额峰度</translation>
    </message>
    <message>
        <source>level (coordinate of a rotated unit vector)</source>
        <translation>量化级（旋转后单位向量的坐标）</translation>
    </message>
    <message>
        <source>constOpt pow2 (UE8M0 scale)</source>
        <translation>constOpt pow2（UE8M0 缩放因子）</translation>
    </message>
    <message>
        <source>constOpt unrounded (FP32 scale)</source>
        <translation>constOpt 不取整（FP32 缩放因子）</translation>
    </message>
    <message>
        <source> c* %1</source>
        <translation> c* = %1</translation>
    </message>
    <message>
        <source> 0.156 (paper)</source>
        <translation> 0.156（论文）</translation>
    </message>
    <message>
        <source> 0.195 (pow2)</source>
        <translation> 0.195（2 的幂）</translation>
    </message>
    <message>
        <source>your keys, d = %1</source>
        <translation>你的键，d = %1</translation>
    </message>
    <message>
        <source>theory, d = %1</source>
        <translation>理论，d = %1</translation>
    </message>
    <message>
        <source>FP4 /6, %1</source>
        <translation>FP4 /6，%1</translation>
    </message>
    <message>
        <source>Lloyd–Max floor, %1</source>
        <translation>Lloyd–Max 下限，%1</translation>
    </message>
    <message>
        <source>solid: constOpt pow2 · dashed: FP4 /6 · dotted: Lloyd–Max floor</source>
        <translation>实线：constOpt pow2 · 虚线：FP4 /6 · 点线：Lloyd–Max 下限</translation>
    </message>
    <message>
        <source>before the rotation</source>
        <translation>旋转前</translation>
    </message>
    <message>
        <source>after the rotation</source>
        <translation>旋转后</translation>
    </message>
    <message>
        <source>theory (exact law at d = %1)</source>
        <translation>理论（d = %1 时的精确分布）</translation>
    </message>
    <message>
        <source>refit on K, shared</source>
        <translation>在 K 上重新拟合，共享</translation>
    </message>
    <message>
        <source>refit on V, shared</source>
        <translation>在 V 上重新拟合，共享</translation>
    </message>
    <message>
        <source>K refit</source>
        <translation>K 重新拟合</translation>
    </message>
    <message>
        <source>V refit</source>
        <translation>V 重新拟合</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1: %2, %3</source>
        <translation>%1：%2，%3</translation>
    </message>
</context>
<context>
    <name>quantscope::KvView</name>
    <message>
        <source>Open KV Cache…</source>
        <translation>打开 KV 缓存…</translation>
    </message>
    <message>
        <source>A capture, or K/V (and Q) arrays in .safetensors, .npz or .npy</source>
        <translation>一个采集，或 .safetensors、.npz、.npy 中的 K/V（及 Q）数组</translation>
    </message>
    <message>
        <source>The plan&apos;s scheme for the keys</source>
        <translation>计划中键所用的方案</translation>
    </message>
    <message>
        <source>The plan&apos;s scheme for the values</source>
        <translation>计划中值所用的方案</translation>
    </message>
    <message>
        <source>constOpt&apos;s scale constant: s = c·max|x| per group of 32</source>
        <translation>constOpt 的缩放常数：每组 32 个 s = c·max|x|</translation>
    </message>
    <message>
        <source>The first and last n layers stay in BF16 (the plan and the storage)</source>
        <translation>前 n 层和后 n 层保持 BF16（计划与存储）</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>GPU memory for the KV cache: how many tokens of context fit</source>
        <translation>KV 缓存的 GPU 显存：能容纳多少上下文词元</translation>
    </message>
    <message>
        <source>K scheme:</source>
        <translation>K 方案：</translation>
    </message>
    <message>
        <source>c:</source>
        <translation>c：</translation>
    </message>
    <message>
        <source>Boundary layers:</source>
        <translation>边界层：</translation>
    </message>
    <message>
        <source>V scheme:</source>
        <translation>V 方案：</translation>
    </message>
    <message>
        <source>KV memory:</source>
        <translation>KV 显存：</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Every KV scheme on every layer and head, the plan, the c sweep, the codebooks and the distortion curves, in the background</source>
        <translation>在后台计算每一层、每个头上的每个 KV 方案、计划、c 扫描、码本和失真曲线</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Scheme</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>K rel MSE</source>
        <translation>K 相对 MSE</translation>
    </message>
    <message>
        <source>V rel MSE</source>
        <translation>V 相对 MSE</translation>
    </message>
    <message>
        <source>KL</source>
        <translation>KL 散度</translation>
    </message>
    <message>
        <source>max |ΔP|</source>
        <translation>最大 |ΔP|</translation>
    </message>
    <message>
        <source>Output rel error</source>
        <translation>输出相对误差</translation>
    </message>
    <message>
        <source>Bytes/token</source>
        <translation>字节/词元</translation>
    </message>
    <message>
        <source>Context tokens</source>
        <translation>上下文词元数</translation>
    </message>
    <message>
        <source>The scheme whose K and V MSE per layer and head the table shows</source>
        <translation>表格显示其每层每头 K 和 V MSE 的方案</translation>
    </message>
    <message>
        <source>MSE per layer and head:</source>
        <translation>每层每头的 MSE：</translation>
    </message>
    <message>
        <source>No K/V cache yet: open a checkpoint with its capture beside it, pair a capture (File ▸ Open Capture…) or open K/V arrays (File ▸ Open KV Cache…).</source>
        <translation>还没有 K/V 缓存：打开旁边带有采集的检查点，配对一个采集（文件 ▸ 打开采集…），或打开 K/V 数组（文件 ▸ 打开 KV 缓存…）。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Attention errors need queries: capture them (Capture Activations in the Model tab) or add q to the file.</source>
        <translation>注意力误差需要查询：请采集它们（模型标签页中的“采集激活”），或在文件中加入 q。</translation>
    </message>
    <message numerus="yes">
        <source>The plan: K and V schemes as chosen, the first and last %n layer(s) in BF16</source>
        <translation>
            <numerusform>计划：按所选的 K 和 V 方案，前后各 %n 层为 BF16</numerusform>
        </translation>
    </message>
    <message>
        <source>K h%1</source>
        <translation>K 头%1</translation>
    </message>
    <message>
        <source>V h%1</source>
        <translation>V 头%1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>%1, K head %2: MSE %3</source>
        <translation>%1，K 头 %2：MSE %3</translation>
    </message>
    <message>
        <source>%1, V head %2: MSE %3</source>
        <translation>%1，V 头 %2：MSE %3</translation>
    </message>
    <message>
        <source>Open a K/V cache (File ▸ Open KV Cache…) or pair a capture, then press Run.</source>
        <translation>打开一个 K/V 缓存（文件 ▸ 打开 KV 缓存…）或配对一个采集，然后点击运行。</translation>
    </message>
    <message>
        <source>The lab is running…</source>
        <translation>实验正在运行…</translation>
    </message>
    <message>
        <source>Press Run to study %1.</source>
        <translation>点击运行以研究 %1。</translation>
    </message>
    <message>
        <source>Nothing to draw in this report.</source>
        <translation>此报告中没有可绘制的内容。</translation>
    </message>
    <message>
        <source>%1 (%2): %3 layer(s) × %4 KV head(s) × %5 tokens × d %6; %7 query head(s) × %8 queries; %9 ms.</source>
        <translation>%1（%2）：%3 层 × %4 个 KV 头 × %5 个词元 × d %6；%7 个查询头 × %8 个查询；%9 ms。</translation>
    </message>
    <message>
        <source>c sweep on the rotated keys: c* = %1 (flat for c in [%2, %3]); MSE at 0.156 %4, at 0.195 %5.</source>
        <translation>旋转后键上的 c 扫描：c* = %1（c 在 [%2, %3] 内平坦）；0.156 处 MSE %4，0.195 处 %5。</translation>
    </message>
    <message>
        <source>No queries: attention errors (KL, max |ΔP|, output error) need queries. Capture them (Capture Activations in the Model tab) or add q to the file, then run again.</source>
        <translation>没有查询：注意力误差（KL、最大 |ΔP|、输出误差）需要查询。请采集它们（模型标签页中的“采集激活”）或在文件中加入 q，然后重新运行。</translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>注：%1</translation>
    </message>
    <message>
        <source>Open a K/V cache,
then press Run.</source>
        <translation>打开一个 K/V 缓存，
然后点击运行。</translation>
    </message>
    <message>
        <source>Press Run to draw this.</source>
        <translation>点击运行以绘制此图。</translation>
    </message>
</context>
<context>
    <name>quantscope::LayerHeatMap</name>
    <message>
        <source>projection</source>
        <translation>投影</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
</context>
<context>
    <name>quantscope::LayersView</name>
    <message>
        <source>Relative error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>SQNR (dB)</source>
        <translation>信量噪比 SQNR（dB）</translation>
    </message>
    <message>
        <source>Kurtosis</source>
        <translation>峰度</translation>
    </message>
    <message>
        <source>Residual rank at τ</source>
        <translation>τ 处的残差秩</translation>
    </message>
    <message>
        <source>Bits per weight</source>
        <translation>每权重比特数</translation>
    </message>
    <message>
        <source>The metric the cells are coloured by</source>
        <translation>单元格着色所依据的指标</translation>
    </message>
    <message>
        <source>The scanned spec whose numbers are shown</source>
        <translation>所显示数值对应的已扫描配置</translation>
    </message>
    <message>
        <source>Experts aggregated</source>
        <translation>专家已汇总</translation>
    </message>
    <message>
        <source>Experts of %1</source>
        <translation>%1 的专家</translation>
    </message>
    <message>
        <source>Residual spectra</source>
        <translation>残差谱</translation>
    </message>
    <message>
        <source>Also count the residual’s singular values above τ (slower)</source>
        <translation>同时统计残差中高于 τ 的奇异值（较慢）</translation>
    </message>
    <message>
        <source>Scan checkpoint</source>
        <translation>扫描检查点</translation>
    </message>
    <message>
        <source>Quantize every 2-D weight with the panel’s configurations (resumes an interrupted scan)</source>
        <translation>用面板中的配置量化每个二维权重（可续扫中断的扫描）</translation>
    </message>
    <message>
        <source>Scanning</source>
        <translation>正在扫描</translation>
    </message>
    <message numerus="yes">
        <source>%n module(s) scanned</source>
        <translation>
            <numerusform>已扫描 %n 个模块</numerusform>
        </translation>
    </message>
    <message>
        <source>Scanning %1: the map fills in when the scan finishes (Cancel keeps what is done).</source>
        <translation>正在扫描 %1：扫描完成后热图会填充（取消会保留已完成的部分）。</translation>
    </message>
    <message>
        <source>No checkpoint open: open one (File ▸ Open…, or Help ▸ Open Demo), then press Scan checkpoint.</source>
        <translation>未打开检查点：先打开一个（文件 ▸ 打开…，或 帮助 ▸ 打开演示），再点击“扫描检查点”。</translation>
    </message>
    <message>
        <source>%1 is open and not scanned yet: press Scan checkpoint to measure every module with the Quantizer dock&apos;s configurations.</source>
        <translation>%1 已打开但尚未扫描：点击“扫描检查点”，用量化器面板中的配置测量每个模块。</translation>
    </message>
</context>
<context>
    <name>quantscope::LoadController</name>
    <message>
        <source>Could not read the importance matrix: %1</source>
        <translation>无法读取重要性矩阵：%1</translation>
    </message>
    <message>
        <source>Importance matrix %1 read (%2 entries): the gguf method&apos;s K-quants with imatrix take their weights from it</source>
        <translation>已读取重要性矩阵 %1（%2 项）：gguf 方法中启用 imatrix 的 K-quants 从中取得权重</translation>
    </message>
    <message>
        <source>Opening the demo…</source>
        <translation>正在打开演示…</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>Opening failed</source>
        <translation>打开失败</translation>
    </message>
    <message>
        <source>Demo</source>
        <translation>演示</translation>
    </message>
    <message>
        <source>Paired the demo&apos;s activation %1 (%2)</source>
        <translation>已配对演示的激活 %1（%2）</translation>
    </message>
    <message>
        <source>Opened the demo</source>
        <translation>已打开演示</translation>
    </message>
    <message numerus="yes">
        <source>Opened the demo with %n warning(s)</source>
        <translation>
            <numerusform>已打开演示，有 %n 条警告</numerusform>
        </translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message numerus="yes">
        <source>Opened %1 with %n warning(s)</source>
        <translation>
            <numerusform>已打开 %1，有 %n 条警告</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n tensor(s)</source>
        <translation>
            <numerusform>%1：%n 个张量</numerusform>
        </translation>
    </message>
    <message>
        <source>Quantscope could not open its demo checkpoint.</source>
        <translation>Quantscope 无法打开其演示检查点。</translation>
    </message>
    <message>
        <source>Quantscope could not open “%1”.</source>
        <translation>Quantscope 无法打开“%1”。</translation>
    </message>
    <message>
        <source>Could Not Open Checkpoint</source>
        <translation>无法打开检查点</translation>
    </message>
    <message>
        <source>Open Leniently</source>
        <translation>宽松打开</translation>
    </message>
    <message>
        <source>Accept gaps and trailing bytes between tensors, as some writers leave them. Overlapping or out-of-range tensors stay errors.</source>
        <translation>接受张量之间的空隙和尾随字节（某些写入程序会留下它们）。重叠或越界的张量仍视为错误。</translation>
    </message>
    <message>
        <source>Paired %1 as the activation; the next run shows its channel maxima</source>
        <translation>已将 %1 配对为激活；下次运行将显示其通道最大值</translation>
    </message>
    <message>
        <source>Could not open the activation file “%1”: %2</source>
        <translation>无法打开激活文件“%1”：%2</translation>
    </message>
    <message>
        <source>“%1” holds no tensor to pair</source>
        <translation>“%1”中没有可配对的张量</translation>
    </message>
    <message>
        <source>Paired %1 from %2 as the activation</source>
        <translation>已将 %2 中的 %1 配对为激活</translation>
    </message>
    <message>
        <source>Open a checkpoint first, then its capture</source>
        <translation>请先打开检查点，再打开其采集</translation>
    </message>
    <message>
        <source>Unpaired the capture %1</source>
        <translation>已取消采集 %1 的配对</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %2 modules, %n token(s)</source>
        <translation>
            <numerusform>%2 个模块中的 %1 个，%n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>Opening the capture %1…</source>
        <translation>正在打开采集 %1…</translation>
    </message>
    <message>
        <source>Found the capture %1 beside the checkpoint but could not pair it: %2</source>
        <translation>在检查点旁找到采集 %1，但无法配对：%2</translation>
    </message>
    <message>
        <source>Could not pair the capture %1: %2</source>
        <translation>无法配对采集 %1：%2</translation>
    </message>
    <message>
        <source>The capture beside the checkpoint did not pair (see the log)</source>
        <translation>检查点旁的采集未能配对（见日志）</translation>
    </message>
    <message>
        <source>The capture did not pair (see the log)</source>
        <translation>采集未能配对（见日志）</translation>
    </message>
    <message>
        <source>Paired the capture beside the checkpoint, %1: %2</source>
        <translation>已配对检查点旁的采集，%1：%2</translation>
    </message>
    <message>
        <source>Paired the capture %1: %2</source>
        <translation>已配对采集 %1：%2</translation>
    </message>
    <message>
        <source>Quantize jobs and scans now report the output-aware error.</source>
        <translation>量化任务和扫描现在会报告输出感知误差。</translation>
    </message>
    <message>
        <source>Capture shape mismatch: %1</source>
        <translation>采集形状不匹配：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n more capture shape mismatch(es)</source>
        <translation>
            <numerusform>另有 %n 处采集形状不匹配</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n weight(s) of the checkpoint are not in the capture (no output-aware error for them)</source>
        <translation>
            <numerusform>检查点中有 %n 个权重不在采集中（它们没有输出感知误差）</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the importance matrix %1…</source>
        <translation>正在读取重要性矩阵 %1…</translation>
    </message>
</context>
<context>
    <name>quantscope::LogView</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>清除(&amp;L)</translation>
    </message>
</context>
<context>
    <name>quantscope::MainWindow</name>
    <message>
        <source>Open llama.cpp &amp;Imatrix…</source>
        <translation>打开 llama.cpp 重要性矩阵(&amp;I)…</translation>
    </message>
    <message>
        <source>Read llama.cpp&apos;s importance matrix (imatrix.dat or imatrix GGUF): the gguf method&apos;s K-quants with imatrix then take their weights from it instead of a capture</source>
        <translation>读取 llama.cpp 的重要性矩阵（imatrix.dat 或 imatrix GGUF）：此后 gguf 方法中启用 imatrix 的 K-quants 从中取得权重，而不是从采集中</translation>
    </message>
    <message>
        <source>Unpair Imatri&amp;x</source>
        <translation>取消重要性矩阵配对(&amp;X)</translation>
    </message>
    <message>
        <source>Open llama.cpp Imatrix</source>
        <translation>打开 llama.cpp 重要性矩阵</translation>
    </message>
    <message>
        <source>Importance matrices (*.dat *.gguf);;All files (*)</source>
        <translation>重要性矩阵 (*.dat *.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Could not read the importance matrix.</source>
        <translation>无法读取重要性矩阵。</translation>
    </message>
    <message>
        <source>Importance matrix: %1</source>
        <translation>重要性矩阵：%1</translation>
    </message>
    <message numerus="yes">
        <source>Quantscope %1; jobs run on %n thread(s)</source>
        <translation>
            <numerusform>Quantscope %1；任务在 %n 个线程上运行</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a .safetensors file, a sharded checkpoint&apos;s index, a .npy/.npz file or a session</source>
        <translation>打开 .safetensors 文件、分片检查点的索引、.npy/.npz 文件或会话</translation>
    </message>
    <message>
        <source>Open &amp;Folder…</source>
        <translation>打开文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>Open a checkpoint folder</source>
        <translation>打开检查点文件夹</translation>
    </message>
    <message>
        <source>Open &amp;Session…</source>
        <translation>打开会话(&amp;S)…</translation>
    </message>
    <message>
        <source>Restore a saved .qscope session</source>
        <translation>恢复已保存的 .qscope 会话</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>保存会话(&amp;S)</translation>
    </message>
    <message>
        <source>Save the checkpoint, selection, configurations and results as a .qscope file</source>
        <translation>将检查点、选择、配置和结果保存为 .qscope 文件</translation>
    </message>
    <message>
        <source>Save Session &amp;As…</source>
        <translation>会话另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Pair Activation from &amp;File…</source>
        <translation>从文件配对激活(&amp;F)…</translation>
    </message>
    <message>
        <source>Open an activation tensor (.npy, .npz, .safetensors) to compare its channel maxima with the weights&apos;</source>
        <translation>打开激活张量（.npy、.npz、.safetensors），将其通道最大值与权重比较</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Quantize the selected tensors with every configuration</source>
        <translation>用每种配置量化所选张量</translation>
    </message>
    <message>
        <source>&amp;Cancel Job</source>
        <translation>取消任务(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Add Configuration</source>
        <translation>添加配置(&amp;A)</translation>
    </message>
    <message>
        <source>Compare one more configuration (up to four)</source>
        <translation>再比较一种配置（最多四种）</translation>
    </message>
    <message>
        <source>&amp;Filter Tensors</source>
        <translation>筛选张量(&amp;F)</translation>
    </message>
    <message>
        <source>Show &amp;Status Bar</source>
        <translation>显示状态栏(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;Demo</source>
        <translation>打开演示(&amp;D)</translation>
    </message>
    <message>
        <source>Open the built-in demo checkpoint</source>
        <translation>打开内置演示检查点</translation>
    </message>
    <message>
        <source>&amp;About Quantscope</source>
        <translation>关于 Quantscope(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Distribution</source>
        <translation>分布(&amp;D)</translation>
    </message>
    <message>
        <source>W and Ŵ histograms, the error, and per-channel maxima</source>
        <translation>W 和 Ŵ 的直方图、误差以及逐通道最大值</translation>
    </message>
    <message>
        <source>&amp;Numbers</source>
        <translation>数值(&amp;N)</translation>
    </message>
    <message>
        <source>Every metric of every configuration; copy or export them</source>
        <translation>每种配置的每项指标；可复制或导出</translation>
    </message>
    <message>
        <source>&amp;Spectrum</source>
        <translation>谱(&amp;S)</translation>
    </message>
    <message>
        <source>Singular values of W − Ŵ: choose a MiLo rank by its error and size</source>
        <translation>W − Ŵ 的奇异值：按误差和大小选择 MiLo 的秩</translation>
    </message>
    <message>
        <source>Tensors</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>Quantizer</source>
        <translation>量化器</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Quantize</source>
        <translation>量化(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>L&amp;anguage</source>
        <translation>语言(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Compute device: detecting…</source>
        <translation>计算设备：正在检测…</translation>
    </message>
    <message>
        <source>The device quantizers and metrics run on</source>
        <translation>运行量化器和指标的设备</translation>
    </message>
    <message>
        <source>Compute device %1</source>
        <translation>计算设备 %1</translation>
    </message>
    <message>
        <source>unknown (%1)</source>
        <translation>未知（%1）</translation>
    </message>
    <message>
        <source>Compute device: unknown</source>
        <translation>计算设备：未知</translation>
    </message>
    <message>
        <source>Could not detect the compute devices: %1</source>
        <translation>无法检测计算设备：%1</translation>
    </message>
    <message>
        <source>&amp;Overview</source>
        <translation>总览(&amp;O)</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>导出(&amp;X)</translation>
    </message>
    <message>
        <source>A recipe as a Quark, compressed-tensors, llm-compressor or Quantscope config</source>
        <translation>将配方导出为 Quark、compressed-tensors、llm-compressor 或 Quantscope 配置</translation>
    </message>
    <message>
        <source>One sortable row per tensor and configuration; export it as CSV</source>
        <translation>每个张量和配置一行，可排序；可导出为 CSV</translation>
    </message>
    <message>
        <source>Quantscope</source>
        <translation>Quantscope</translation>
    </message>
    <message>
        <source>Quantscope — %1</source>
        <translation>Quantscope — %1</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s)</source>
        <translation>
            <numerusform>%n 个分片</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n 条警告</numerusform>
        </translation>
    </message>
    <message>
        <source>Open Checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <source>Checkpoints and sessions (*.safetensors *.safetensors.index.json *.npy *.npz *.gguf *.qscope);;All files (*)</source>
        <translation>检查点和会话 (*.safetensors *.safetensors.index.json *.npy *.npz *.gguf *.qscope);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open Checkpoint Folder</source>
        <translation>打开检查点文件夹</translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>Quantscope sessions (*.qscope)</source>
        <translation>Quantscope 会话 (*.qscope)</translation>
    </message>
    <message>
        <source>Save Session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Pair Activation from File</source>
        <translation>从文件配对激活</translation>
    </message>
    <message>
        <source>Tensors (*.npy *.npz *.safetensors);;All files (*)</source>
        <translation>张量 (*.npy *.npz *.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>still being detected</source>
        <translation>仍在检测</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;A workbench for quantizing the tensors of large language models.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Compute device:&lt;/b&gt; %2&lt;br&gt;&lt;b&gt;GPU backends in this build:&lt;/b&gt; %3&lt;br&gt;&lt;b&gt;Job threads:&lt;/b&gt; %4&lt;br&gt;&lt;b&gt;Qt:&lt;/b&gt; %5&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;用于量化大语言模型张量的工作台。&lt;/p&gt;&lt;p&gt;&lt;b&gt;计算设备：&lt;/b&gt;%2&lt;br&gt;&lt;b&gt;本构建中的 GPU 后端：&lt;/b&gt;%3&lt;br&gt;&lt;b&gt;任务线程：&lt;/b&gt;%4&lt;br&gt;&lt;b&gt;Qt：&lt;/b&gt;%5&lt;/p&gt;</translation>
    </message>
    <message>
        <source>About Quantscope</source>
        <translation>关于 Quantscope</translation>
    </message>
    <message>
        <source>Open &amp;Capture…</source>
        <translation>打开采集(&amp;C)…</translation>
    </message>
    <message>
        <source>Pair a calibration capture (quantscope-cli capture) with the checkpoint: every run then reports the output-aware error E‖(W − Ŵ)x‖²</source>
        <translation>将校准采集（quantscope-cli capture）与检查点配对：之后每次运行都会报告输出感知误差 E‖(W − Ŵ)x‖²</translation>
    </message>
    <message>
        <source>Unpair Capt&amp;ure</source>
        <translation>取消采集配对(&amp;U)</translation>
    </message>
    <message>
        <source>Open Capture</source>
        <translation>打开采集</translation>
    </message>
    <message>
        <source>Captures (*.safetensors);;All files (*)</source>
        <translation>采集文件 (*.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export &amp;Report…</source>
        <translation>导出报告(&amp;R)…</translation>
    </message>
    <message>
        <source>Write the session as one self-contained HTML file (plots, tables, configurations, the checkpoint&apos;s name and hash) to share</source>
        <translation>将会话写成一个独立的 HTML 文件（图、表、配置、检查点的名称和哈希），便于分享</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>Open the user guide: every view, dock and menu explained</source>
        <translation>打开用户指南：讲解每个视图、面板和菜单</translation>
    </message>
    <message>
        <source>Could not write “%1”.</source>
        <translation>无法写入“%1”。</translation>
    </message>
    <message>
        <source>Writing the report %1…</source>
        <translation>正在写入报告 %1…</translation>
    </message>
    <message>
        <source>Wrote the report %1</source>
        <translation>已写入报告 %1</translation>
    </message>
    <message>
        <source>The report was not written: %1</source>
        <translation>报告未写入：%1</translation>
    </message>
    <message>
        <source>The user guide is missing from this build</source>
        <translation>此版本缺少用户指南</translation>
    </message>
    <message>
        <source>Quantscope User Guide</source>
        <translation>Quantscope 用户指南</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>HTML reports (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <source>report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>No translation for %1: the window stays in English.</source>
        <translation>没有 %1 的翻译：窗口保持英文。</translation>
    </message>
    <message>
        <source>Language: %1</source>
        <translation>语言：%1</translation>
    </message>
</context>
<context>
    <name>quantscope::ModelController</name>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>What quantization does to the model: KL, top-1 and perplexity through your PyTorch</source>
        <translation>量化对模型的影响：用你的 PyTorch 测量 KL、Top-1 和困惑度</translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation>正在检查 %1…</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>CUDA: %1</source>
        <translation>CUDA：%1</translation>
    </message>
    <message>
        <source>no CUDA: the model runs on the CPU</source>
        <translation>无 CUDA：模型在 CPU 上运行</translation>
    </message>
    <message>
        <source>Choose the model folder.</source>
        <translation>请选择模型文件夹。</translation>
    </message>
    <message>
        <source>Choose the calibration data: a text file, or token ids as .npy.</source>
        <translation>请选择校准数据：文本文件，或 .npy 格式的词元 ID。</translation>
    </message>
    <message>
        <source>The Budget tab has no chosen recipe: scan in the Layers tab first.</source>
        <translation>“预算”标签页还没有选定的配方：请先在“层”标签页中扫描。</translation>
    </message>
    <message>
        <source>Choose the recipe file.</source>
        <translation>请选择配方文件。</translation>
    </message>
    <message>
        <source>Could not write the recipe: %1</source>
        <translation>无法写入配方：%1</translation>
    </message>
    <message>
        <source>Measuring each layer&apos;s KL…</source>
        <translation>正在测量每一层的 KL…</translation>
    </message>
    <message>
        <source>The eval failed.</source>
        <translation>评估失败。</translation>
    </message>
    <message numerus="yes">
        <source>Measured %n module(s).</source>
        <translation>
            <numerusform>已测量 %n 个模块。</numerusform>
        </translation>
    </message>
    <message>
        <source>The eval report could not be read.</source>
        <translation>无法读取评估报告。</translation>
    </message>
    <message>
        <source>The Budget tab has no budget yet: scan in the Layers tab with several configurations first.</source>
        <translation>“预算”标签页尚无预算：请先在“层”标签页中使用多个配置扫描。</translation>
    </message>
    <message numerus="yes">
        <source>Solving the budget at %n point(s)…</source>
        <translation>
            <numerusform>正在 %n 个点上求解预算…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Measured %1 of %n budget point(s).</source>
        <translation>
            <numerusform>已测量 %n 个预算点中的 %1 个。</numerusform>
        </translation>
    </message>
    <message>
        <source>Measuring the budget points failed.</source>
        <translation>预算点测量失败。</translation>
    </message>
    <message>
        <source>Cancelled; the points measured before stay shown.</source>
        <translation>已取消；之前测量的点保持显示。</translation>
    </message>
    <message>
        <source>Save the Capture</source>
        <translation>保存采集</translation>
    </message>
    <message>
        <source>Captures (*.safetensors)</source>
        <translation>采集文件 (*.safetensors)</translation>
    </message>
    <message>
        <source>Capturing the model&apos;s activations…</source>
        <translation>正在采集模型的激活…</translation>
    </message>
    <message>
        <source>The capture failed.</source>
        <translation>采集失败。</translation>
    </message>
    <message>
        <source>Captured %1 token(s) into %2.</source>
        <translation>已将 %1 个词元采集到 %2。</translation>
    </message>
    <message>
        <source>Checking %1</source>
        <translation>正在检查 %1</translation>
    </message>
    <message>
        <source>Capture of %1</source>
        <translation>%1 的激活采集</translation>
    </message>
    <message>
        <source>Evaluation: each layer&apos;s KL</source>
        <translation>评估：每层的 KL</translation>
    </message>
    <message numerus="yes">
        <source>Evaluation: the budget at %n point(s)</source>
        <translation>
            <numerusform>评估：%n 个点上的预算</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::ModelView</name>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>undefined</source>
        <translation>未定义</translation>
    </message>
    <message>
        <source>A Hugging Face model folder (or a .gguf)</source>
        <translation>Hugging Face 模型文件夹（或 .gguf 文件）</translation>
    </message>
    <message>
        <source>UTF-8 text, or token ids as .npy</source>
        <translation>UTF-8 文本，或 .npy 格式的词元 ID</translation>
    </message>
    <message>
        <source>Sequences the model runs on</source>
        <translation>模型运行的序列数</translation>
    </message>
    <message>
        <source>Tokens per sequence</source>
        <translation>每个序列的词元数</translation>
    </message>
    <message>
        <source>×</source>
        <translation>×</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>The interpreter with PyTorch and transformers the bridge runs in</source>
        <translation>运行桥接程序的解释器（需含 PyTorch 和 transformers）</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Whether the interpreter has what the bridge needs, and their versions</source>
        <translation>检查解释器是否具备桥接程序所需的组件，以及它们的版本</translation>
    </message>
    <message>
        <source>the Recipe tab&apos;s recipe</source>
        <translation>“配方”标签页中的配方</translation>
    </message>
    <message>
        <source>the Budget tab&apos;s chosen recipe</source>
        <translation>“预算”标签页中选定的配方</translation>
    </message>
    <message>
        <source>a recipe file</source>
        <translation>配方文件</translation>
    </message>
    <message>
        <source>R.json</source>
        <translation>R.json</translation>
    </message>
    <message>
        <source>Choose a Recipe</source>
        <translation>选择配方</translation>
    </message>
    <message>
        <source>Recipes (*.json);;All files (*)</source>
        <translation>配方 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Choose the Model Folder</source>
        <translation>选择模型文件夹</translation>
    </message>
    <message>
        <source>Calibration data:</source>
        <translation>校准数据：</translation>
    </message>
    <message>
        <source>Choose Calibration Data</source>
        <translation>选择校准数据</translation>
    </message>
    <message>
        <source>Text or token ids (*.txt *.npy);;All files (*)</source>
        <translation>文本或词元 ID (*.txt *.npy);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Samples:</source>
        <translation>样本：</translation>
    </message>
    <message>
        <source>Capture:</source>
        <translation>采集：</translation>
    </message>
    <message>
        <source>Interpreter:</source>
        <translation>解释器：</translation>
    </message>
    <message>
        <source>Recipe:</source>
        <translation>配方：</translation>
    </message>
    <message>
        <source>Measure Layers</source>
        <translation>测量各层</translation>
    </message>
    <message>
        <source>One eval with the recipe, each module also quantized alone: its KL against its output-aware and weight error</source>
        <translation>用该配方做一次评估，并将每个模块单独量化：对比其 KL 与其输出感知误差和权重误差</translation>
    </message>
    <message>
        <source> points</source>
        <translation> 个点</translation>
    </message>
    <message>
        <source>Measure Budget Points</source>
        <translation>测量预算点</translation>
    </message>
    <message>
        <source>The Budget tab&apos;s optimum at budgets from its least to its most MB, each measured by an eval</source>
        <translation>“预算”标签页在从最小到最大 MB 的各个预算下的最优解，每个都通过一次评估测量</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Measure layers to see which error predicts the model&apos;s KL.</source>
        <translation>测量各层，看看哪种误差能预测模型的 KL。</translation>
    </message>
    <message>
        <source>Scan in the Layers tab; the Budget tab&apos;s optima can then be measured here.</source>
        <translation>请在“层”标签页中扫描；之后可在此测量“预算”标签页的最优解。</translation>
    </message>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>Predicted error</source>
        <translation>预测误差</translation>
    </message>
    <message>
        <source>Measured KL ± 95 %</source>
        <translation>实测 KL ± 95 %</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1 一致率</translation>
    </message>
    <message>
        <source>Perplexity</source>
        <translation>困惑度</translation>
    </message>
    <message>
        <source>none paired (File ▸ Open Capture…): modules get no output-aware error</source>
        <translation>未配对（文件 ▸ 打开采集…）：模块没有输出感知误差</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <source>Spearman ρ against the measured KL: output-aware error %1 (%n module(s)), </source>
        <translation>
            <numerusform>与实测 KL 的 Spearman ρ：输出感知误差 %1（%n 个模块），</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>weight error ‖W − Ŵ‖/‖W‖ %1 (%n module(s)).</source>
        <translation>
            <numerusform>权重误差 ‖W − Ŵ‖/‖W‖ %1（%n 个模块）。</numerusform>
        </translation>
    </message>
    <message>
        <source>No module has an output-aware error: pair a capture (File ▸ Open Capture…).</source>
        <translation>没有模块具有输出感知误差：请配对一个采集（文件 ▸ 打开采集…）。</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>%1 (%2 … %3)</source>
        <translation>%1（%2 … %3）</translation>
    </message>
    <message>
        <source>Spearman ρ against the measured KL over the points: weight error %1, output-aware error %2.</source>
        <translation>各点上与实测 KL 的 Spearman ρ：权重误差 %1，输出感知误差 %2。</translation>
    </message>
    <message>
        <source>The output-aware error ranks the points better.</source>
        <translation>输出感知误差对各点的排序更好。</translation>
    </message>
    <message>
        <source>The weight error ranks the points better.</source>
        <translation>权重误差对各点的排序更好。</translation>
    </message>
    <message>
        <source>Both rank the points alike.</source>
        <translation>两者对各点的排序相同。</translation>
    </message>
    <message>
        <source>The output-aware error needs a scan with a capture.</source>
        <translation>输出感知误差需要带采集的扫描。</translation>
    </message>
    <message>
        <source>Capture Activations</source>
        <translation>采集激活</translation>
    </message>
    <message>
        <source>Run the model on the calibration data and keep each layer&apos;s input Gram, ranges and sampled rows, and the K/V cache: a capture, paired with the checkpoint</source>
        <translation>在校准数据上运行模型，保留每层输入的 Gram 矩阵、取值范围和抽样行以及 K/V 缓存：生成一个采集，并与检查点配对</translation>
    </message>
</context>
<context>
    <name>quantscope::MoeBarsPlot</name>
    <message>
        <source>time per step (µs)</source>
        <translation>每步时间（µs）</translation>
    </message>
    <message>
        <source>one launch per expert</source>
        <translation>每个专家一次启动</translation>
    </message>
    <message>
        <source>one strided-batched launch</source>
        <translation>一次跨步批量启动</translation>
    </message>
    <message>
        <source>%1
%2 experts</source>
        <translation>%1
%2 个专家</translation>
    </message>
    <message>
        <source>%1, %2: %3 µs per step</source>
        <translation>%1，%2：每步 %3 µs</translation>
    </message>
</context>
<context>
    <name>quantscope::NumbersModel</name>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>This run failed: %1</source>
        <translation>此次运行失败：%1</translation>
    </message>
    <message>
        <source>%1
%2 = %3</source>
        <translation>%1
%2 = %3</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Configuration %1 on %2
%3</source>
        <translation>配置 %1 作用于 %2
%3</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Relative error ‖W−Ŵ‖/‖W‖</source>
        <translation>相对误差 ‖W−Ŵ‖/‖W‖</translation>
    </message>
    <message>
        <source>SQNR (dB)</source>
        <translation>信量噪比 SQNR（dB）</translation>
    </message>
    <message>
        <source>MSE</source>
        <translation>均方误差 MSE</translation>
    </message>
    <message>
        <source>RMSE</source>
        <translation>均方根误差 RMSE</translation>
    </message>
    <message>
        <source>Max |error|</source>
        <translation>最大 |误差|</translation>
    </message>
    <message>
        <source>Cosine similarity</source>
        <translation>余弦相似度</translation>
    </message>
    <message>
        <source>|error| p50</source>
        <translation>|误差| p50</translation>
    </message>
    <message>
        <source>|error| p90</source>
        <translation>|误差| p90</translation>
    </message>
    <message>
        <source>|error| p99</source>
        <translation>|误差| p99</translation>
    </message>
    <message>
        <source>|error| p99.9</source>
        <translation>|误差| p99.9</translation>
    </message>
    <message>
        <source>Histogram overlap</source>
        <translation>直方图重叠度</translation>
    </message>
    <message>
        <source>Bits per element</source>
        <translation>每元素位数</translation>
    </message>
    <message>
        <source>Stored bytes</source>
        <translation>存储字节数</translation>
    </message>
    <message>
        <source>Ragged groups</source>
        <translation>不完整分组</translation>
    </message>
    <message>
        <source>Non-finite groups</source>
        <translation>非有限值分组</translation>
    </message>
    <message>
        <source>W min</source>
        <translation>W 最小值</translation>
    </message>
    <message>
        <source>W max</source>
        <translation>W 最大值</translation>
    </message>
    <message>
        <source>W mean</source>
        <translation>W 均值</translation>
    </message>
    <message>
        <source>W std</source>
        <translation>W 标准差</translation>
    </message>
    <message>
        <source>W skewness</source>
        <translation>W 偏度</translation>
    </message>
    <message>
        <source>W excess kurtosis</source>
        <translation>W 超额峰度</translation>
    </message>
    <message>
        <source>W NaN count</source>
        <translation>W NaN 个数</translation>
    </message>
    <message>
        <source>W Inf count</source>
        <translation>W Inf 个数</translation>
    </message>
    <message>
        <source>Ŵ min</source>
        <translation>Ŵ 最小值</translation>
    </message>
    <message>
        <source>Ŵ max</source>
        <translation>Ŵ 最大值</translation>
    </message>
    <message>
        <source>Ŵ mean</source>
        <translation>Ŵ 均值</translation>
    </message>
    <message>
        <source>Ŵ std</source>
        <translation>Ŵ 标准差</translation>
    </message>
    <message>
        <source>Ŵ skewness</source>
        <translation>Ŵ 偏度</translation>
    </message>
    <message>
        <source>Ŵ excess kurtosis</source>
        <translation>Ŵ 超额峰度</translation>
    </message>
    <message>
        <source>Ŵ NaN count</source>
        <translation>Ŵ NaN 个数</translation>
    </message>
    <message>
        <source>Ŵ Inf count</source>
        <translation>Ŵ Inf 个数</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Time (ms)</source>
        <translation>时间（毫秒）</translation>
    </message>
    <message>
        <source>Size of the whole error relative to the size of the tensor; 0.01 = 1 %</source>
        <translation>整体误差相对于张量大小的比例；0.01 = 1 %</translation>
    </message>
    <message>
        <source>Signal-to-quantization-noise ratio, 10·log10(Σw²/Σ(w−ŵ)²); +6 dB ≈ one more bit</source>
        <translation>信号与量化噪声之比，10·log10(Σw²/Σ(w−ŵ)²)；+6 dB ≈ 多一位</translation>
    </message>
    <message>
        <source>Mean of the squared error (w−ŵ)²</source>
        <translation>平方误差 (w−ŵ)² 的均值</translation>
    </message>
    <message>
        <source>Square root of the MSE, in the tensor&apos;s units</source>
        <translation>MSE 的平方根，与张量单位相同</translation>
    </message>
    <message>
        <source>Largest error of any single element (often an outlier or a clipped value)</source>
        <translation>任一单个元素的最大误差（常为离群值或被截断的值）</translation>
    </message>
    <message>
        <source>Cosine of the angle between W and Ŵ as vectors; 1 = same direction</source>
        <translation>将 W 和 Ŵ 视为向量时夹角的余弦；1 = 方向相同</translation>
    </message>
    <message>
        <source>Half of the elements have a smaller |error|</source>
        <translation>一半元素的 |误差| 更小</translation>
    </message>
    <message>
        <source>90 % of the elements have a smaller |error|</source>
        <translation>90 % 的元素 |误差| 更小</translation>
    </message>
    <message>
        <source>99 % of the elements have a smaller |error|</source>
        <translation>99 % 的元素 |误差| 更小</translation>
    </message>
    <message>
        <source>99.9 % of the elements have a smaller |error|: the tail</source>
        <translation>99.9 % 的元素 |误差| 更小：尾部</translation>
    </message>
    <message>
        <source>Shared area of the W and Ŵ histograms; 1 = same distribution of values</source>
        <translation>W 与 Ŵ 直方图的共有面积；1 = 数值分布相同</translation>
    </message>
    <message>
        <source>Stored bits per weight, codes plus scales and zero points</source>
        <translation>每个权重的存储位数，包括码值、缩放因子和零点</translation>
    </message>
    <message>
        <source>Bytes the quantized tensor takes: codes, scales and zero points</source>
        <translation>量化张量占用的字节数：码值、缩放因子和零点</translation>
    </message>
    <message>
        <source>Whether the last group or block is shorter than the others</source>
        <translation>最后一个分组或块是否比其他的短</translation>
    </message>
    <message>
        <source>Groups with a NaN or Inf input, coded as 0</source>
        <translation>输入含 NaN 或 Inf 的分组，编码为 0</translation>
    </message>
    <message>
        <source>Smallest finite value of W</source>
        <translation>W 的最小有限值</translation>
    </message>
    <message>
        <source>Largest finite value of W</source>
        <translation>W 的最大有限值</translation>
    </message>
    <message>
        <source>Mean of W</source>
        <translation>W 的均值</translation>
    </message>
    <message>
        <source>Standard deviation of W (population)</source>
        <translation>W 的标准差（总体）</translation>
    </message>
    <message>
        <source>Asymmetry of W&apos;s distribution; 0 = symmetric</source>
        <translation>W 分布的不对称程度；0 = 对称</translation>
    </message>
    <message>
        <source>Heaviness of W&apos;s tails; 0 = Gaussian, large = outliers that stretch the scales</source>
        <translation>W 尾部的厚重程度；0 = 高斯分布，较大 = 拉大缩放因子的离群值</translation>
    </message>
    <message>
        <source>Elements of W that are NaN</source>
        <translation>W 中为 NaN 的元素</translation>
    </message>
    <message>
        <source>Elements of W that are ±Inf</source>
        <translation>W 中为 ±Inf 的元素</translation>
    </message>
    <message>
        <source>Smallest value of Ŵ</source>
        <translation>Ŵ 的最小值</translation>
    </message>
    <message>
        <source>Largest value of Ŵ</source>
        <translation>Ŵ 的最大值</translation>
    </message>
    <message>
        <source>Mean of Ŵ; a shift from W&apos;s mean is a bias</source>
        <translation>Ŵ 的均值；与 W 均值的偏移即为偏差</translation>
    </message>
    <message>
        <source>Standard deviation of Ŵ</source>
        <translation>Ŵ 的标准差</translation>
    </message>
    <message>
        <source>Asymmetry of Ŵ&apos;s distribution</source>
        <translation>Ŵ 分布的不对称程度</translation>
    </message>
    <message>
        <source>Heaviness of Ŵ&apos;s tails</source>
        <translation>Ŵ 尾部的厚重程度</translation>
    </message>
    <message>
        <source>Elements of Ŵ that are NaN</source>
        <translation>Ŵ 中为 NaN 的元素</translation>
    </message>
    <message>
        <source>Elements of Ŵ that are ±Inf</source>
        <translation>Ŵ 中为 ±Inf 的元素</translation>
    </message>
    <message>
        <source>The device that ran the quantizer and the metrics</source>
        <translation>运行量化器和指标的设备</translation>
    </message>
    <message>
        <source>Wall-clock time of quantizing and measuring</source>
        <translation>量化和测量的实际耗时</translation>
    </message>
    <message numerus="yes">
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens, %1 Gram)
%2 = %3</source>
        <translation>
            <numerusform>E‖(W − Ŵ)x‖²，基于已配对采集的输入（%n 个词元，%1 Gram 矩阵）
%2 = %3</numerusform>
        </translation>
    </message>
    <message>
        <source>diagonal</source>
        <translation>对角</translation>
    </message>
    <message>
        <source>full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>Output-aware error E‖(W−Ŵ)x‖²</source>
        <translation>输出感知误差 E‖(W−Ŵ)x‖²</translation>
    </message>
    <message>
        <source>Relative output-aware error</source>
        <translation>相对输出感知误差</translation>
    </message>
    <message>
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs: what the error does to the layer&apos;s output, summed over output channels</source>
        <translation>E‖(W − Ŵ)x‖²，基于已配对采集的输入：误差对该层输出的影响，对各输出通道求和</translation>
    </message>
    <message>
        <source>E‖(W − Ŵ)x‖² / E‖Wx‖² on the paired capture&apos;s inputs; 0.01 = 1 % of the output&apos;s energy</source>
        <translation>E‖(W − Ŵ)x‖² / E‖Wx‖²，基于已配对采集的输入；0.01 = 输出能量的 1 %</translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1（已过期）</translation>
    </message>
    <message>
        <source>Stale: the configuration was edited after this run; run again to update.</source>
        <translation>已过期：此次运行后配置已被修改；请重新运行以更新。</translation>
    </message>
</context>
<context>
    <name>quantscope::NumbersView</name>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Could not write “%1”: %2</source>
        <translation>无法写入“%1”：%2</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the selected cells (all when none is selected) as tab-separated text at full precision</source>
        <translation>以制表符分隔的全精度文本复制所选单元格（未选择时复制全部）</translation>
    </message>
    <message>
        <source>Export C&amp;SV…</source>
        <translation>导出 CSV(&amp;S)…</translation>
    </message>
    <message>
        <source>Export &amp;JSON…</source>
        <translation>导出 JSON(&amp;J)…</translation>
    </message>
    <message>
        <source>The same keys as quantscope-cli quantize --json</source>
        <translation>与 quantscope-cli quantize --json 的键相同</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Export Numbers as JSON</source>
        <translation>将数值导出为 JSON</translation>
    </message>
    <message>
        <source>Export Numbers as CSV</source>
        <translation>将数值导出为 CSV</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Export Failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>quantscope::OverviewModel</name>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>This run failed: %1</source>
        <translation>此次运行失败：%1</translation>
    </message>
    <message>
        <source>%1 on %2</source>
        <translation>%1 作用于 %2</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>Configuration</source>
        <translation>配置</translation>
    </message>
    <message numerus="yes">
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens)</source>
        <translation>
            <numerusform>E‖(W − Ŵ)x‖²，基于已配对采集的输入（%n 个词元）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1（已过期）</translation>
    </message>
    <message>
        <source>Stale: the configuration was edited after this run; run again to update.</source>
        <translation>已过期：此次运行后配置已被修改；请重新运行以更新。</translation>
    </message>
</context>
<context>
    <name>quantscope::OverviewView</name>
    <message>
        <source>Export C&amp;SV…</source>
        <translation>导出 CSV(&amp;S)…</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> × %n configuration(s)</source>
        <translation>
            <numerusform> × %n 种配置</numerusform>
        </translation>
    </message>
    <message>
        <source>partial batch: cancelled, the finished runs are shown</source>
        <translation>部分批次：已取消，显示已完成的运行</translation>
    </message>
    <message>
        <source>Could not write “%1”: %2</source>
        <translation>无法写入“%1”：%2</translation>
    </message>
    <message>
        <source>Export Overview as CSV</source>
        <translation>将总览导出为 CSV</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Export Failed</source>
        <translation>导出失败</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) on tensors too small for their group or block: not comparable, not tinted (see the tooltip)</source>
        <translation>
            <numerusform>%n 次运行所用的张量小于其分组或块：不可比较，未着色（见提示）</numerusform>
        </translation>
    </message>
    <message>
        <source>No results yet: select tensors in the Tensors dock and press Run (Ctrl+R) to compare every tensor and configuration here.</source>
        <translation>尚无结果：在张量面板中选择张量并点击“运行”（Ctrl+R），即可在此比较每个张量和配置。</translation>
    </message>
</context>
<context>
    <name>quantscope::ParetoPlot</name>
    <message>
        <source>bits per weight</source>
        <translation>每权重比特数</translation>
    </message>
    <message>
        <source>size (MB)</source>
        <translation>大小（MB）</translation>
    </message>
    <message>
        <source>mean squared error</source>
        <translation>均方误差</translation>
    </message>
    <message>
        <source>total squared error</source>
        <translation>总平方误差</translation>
    </message>
    <message>
        <source>current configuration</source>
        <translation>当前配置</translation>
    </message>
    <message>
        <source>chosen budget</source>
        <translation>所选预算</translation>
    </message>
    <message>
        <source>%1: %2 bits per weight, mse %3</source>
        <translation>%1：每权重 %2 比特，MSE %3</translation>
    </message>
    <message>
        <source>%1 MB: total error %2</source>
        <translation>%1 MB：总误差 %2</translation>
    </message>
</context>
<context>
    <name>quantscope::PlanController</name>
    <message>
        <source>&amp;Recipe</source>
        <translation>配方(&amp;R)</translation>
    </message>
    <message>
        <source>The recipe&apos;s rules with undo, checked live against the opened checkpoint</source>
        <translation>配方规则，可撤销，并实时对照已打开的检查点检查</translation>
    </message>
    <message>
        <source>&amp;Budget</source>
        <translation>预算(&amp;B)</translation>
    </message>
    <message>
        <source>One configuration per module under a size budget; the format sweep of a tensor</source>
        <translation>在大小预算内为每个模块选择一个配置；张量的格式扫描</translation>
    </message>
    <message>
        <source>Sweeping %1…</source>
        <translation>正在扫描 %1…</translation>
    </message>
    <message>
        <source>The sweep failed: %1</source>
        <translation>扫描失败：%1</translation>
    </message>
    <message>
        <source>Budget for %1</source>
        <translation>%1 的预算</translation>
    </message>
    <message>
        <source>Format sweep of %1</source>
        <translation>%1 的格式扫描</translation>
    </message>
    <message>
        <source>Budget for any target</source>
        <translation>任意目标的预算</translation>
    </message>
</context>
<context>
    <name>quantscope::PlotWidget</name>
    <message>
        <source>Could not write “%1”.</source>
        <translation>无法写入“%1”。</translation>
    </message>
    <message>
        <source>Export as &amp;PNG…</source>
        <translation>导出为 PNG(&amp;P)…</translation>
    </message>
    <message>
        <source>Export as &amp;SVG…</source>
        <translation>导出为 SVG(&amp;S)…</translation>
    </message>
    <message>
        <source>Export as P&amp;DF…</source>
        <translation>导出为 PDF(&amp;D)…</translation>
    </message>
    <message>
        <source>Export Data as &amp;CSV…</source>
        <translation>将数据导出为 CSV(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Reset Zoom</source>
        <translation>重置缩放(&amp;R)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>SVG drawings (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1（已过期）</translation>
    </message>
</context>
<context>
    <name>quantscope::ProxyScatterPlot</name>
    <message>
        <source>output-aware error E‖(W − Ŵ)x‖²</source>
        <translation>输出感知误差 E‖(W − Ŵ)x‖²</translation>
    </message>
    <message>
        <source>KL with the module alone quantized (nats/token)</source>
        <translation>仅量化该模块时的 KL（nat/词元）</translation>
    </message>
    <message>
        <source>modules</source>
        <translation>模块</translation>
    </message>
    <message>
        <source>%1 (%2)
output-aware error %3 (relative %4)
weight error ‖W − Ŵ‖/‖W‖ %5
KL %6, top-1 %7</source>
        <translation>%1（%2）
输出感知误差 %3（相对 %4）
权重误差 ‖W − Ŵ‖/‖W‖ %5
KL %6，Top-1 %7</translation>
    </message>
</context>
<context>
    <name>quantscope::QuantizerPanel</name>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Auto uses the GPU when there is one and it has the method, else the CPU. Both give the same codes.</source>
        <translation>自动：有 GPU 且支持该方法时使用 GPU，否则使用 CPU。两者给出相同的码值。</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>设备(&amp;D)：</translation>
    </message>
    <message>
        <source>Histogram bins over W&apos;s range (the overlap depends on it)</source>
        <translation>在 W 的范围上划分的直方图分箱数（重叠度取决于它）</translation>
    </message>
    <message>
        <source>s&amp;ymlog x</source>
        <translation>symlog 横轴(&amp;Y)</translation>
    </message>
    <message>
        <source>Bin on sign(x)·log10(1 + |x|/t), t = 10⁻³·max|W|: shows the tails and the values near zero at once</source>
        <translation>按 sign(x)·log10(1 + |x|/t)（t = 10⁻³·max|W|）分箱：同时显示尾部和接近零的值</translation>
    </message>
    <message>
        <source>&amp;Bins:</source>
        <translation>分箱(&amp;B)：</translation>
    </message>
    <message>
        <source>Unpair</source>
        <translation>取消配对</translation>
    </message>
    <message>
        <source>Stop pairing the activation with the weights</source>
        <translation>停止将激活与权重配对</translation>
    </message>
    <message>
        <source>Activation:</source>
        <translation>激活：</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Quantize the selected tensors with every configuration (Ctrl+R)</source>
        <translation>用每种配置量化所选张量（Ctrl+R）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Configuration %1: this Quantscope has no method “%2”</source>
        <translation>配置 %1：此 Quantscope 没有方法“%2”</translation>
    </message>
    <message>
        <source>⚠ %1</source>
        <translation>⚠ %1</translation>
    </message>
    <message>
        <source>+ Add</source>
        <translation>+ 添加</translation>
    </message>
    <message>
        <source>none (right-click a tensor to pair one)</source>
        <translation>无（右键点击张量进行配对）</translation>
    </message>
    <message>
        <source>%1 from %2</source>
        <translation>%2 中的 %1</translation>
    </message>
    <message>
        <source>Compare another configuration (up to %1): a copy of the one being edited</source>
        <translation>再比较一个配置（最多 %1 个）：复制当前正在编辑的配置</translation>
    </message>
    <message>
        <source>Add a preset…</source>
        <translation>添加预设…</translation>
    </message>
    <message>
        <source>Add a configuration as a toolkit quantizes (its spec in each item&apos;s tooltip)</source>
        <translation>按某个工具包的量化方式添加配置（每项的提示中有其规格）</translation>
    </message>
    <message>
        <source>%1 bits/weight</source>
        <translation>%1 位/权重</translation>
    </message>
    <message>
        <source>Its colour in every plot</source>
        <translation>它在每个图中的颜色</translation>
    </message>
    <message>
        <source>Bits per weight on a 256 × 1024 reference weight (codes, scales, zero points and compensators)</source>
        <translation>在 256 × 1024 参考权重上的每权重位数（编码、缩放、零点和补偿器）</translation>
    </message>
    <message>
        <source>Move up (its colour follows the position)</source>
        <translation>上移（颜色随位置变化）</translation>
    </message>
    <message>
        <source>Move down (its colour follows the position)</source>
        <translation>下移（颜色随位置变化）</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>%1 (%2): click to edit</source>
        <translation>%1（%2）：点击编辑</translation>
    </message>
    <message>
        <source>The configuration&apos;s label in the plots, tables and the report</source>
        <translation>该配置在图、表和报告中的标签</translation>
    </message>
    <message>
        <source>&amp;Label:</source>
        <translation>标签(&amp;L)：</translation>
    </message>
    <message>
        <source>&amp;Method:</source>
        <translation>方法(&amp;M)：</translation>
    </message>
</context>
<context>
    <name>quantscope::RankCurvePlot</name>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>quantscope::RecentFilesMenu</name>
    <message>
        <source>Not found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>%1 (missing)</source>
        <translation>%1（缺失）</translation>
    </message>
    <message>
        <source>No Recent Files</source>
        <translation>没有最近的文件</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>清空列表(&amp;C)</translation>
    </message>
</context>
<context>
    <name>quantscope::RecipeEditor</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Dialect</source>
        <translation>方言</translation>
    </message>
    <message>
        <source>Patterns</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Specs</source>
        <translation>规格</translation>
    </message>
    <message>
        <source>Wins</source>
        <translation>胜出</translation>
    </message>
    <message>
        <source>Loses to earlier</source>
        <translation>输给更早的规则</translation>
    </message>
    <message>
        <source>Add rule</source>
        <translation>添加规则</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Replace the recipe</source>
        <translation>替换配方</translation>
    </message>
    <message>
        <source>Add a rule</source>
        <translation>添加规则</translation>
    </message>
    <message>
        <source>Remove a rule</source>
        <translation>移除规则</translation>
    </message>
    <message>
        <source>Move a rule</source>
        <translation>移动规则</translation>
    </message>
    <message>
        <source>Rename a rule</source>
        <translation>重命名规则</translation>
    </message>
    <message>
        <source>Change a dialect</source>
        <translation>更改方言</translation>
    </message>
    <message>
        <source>Edit patterns</source>
        <translation>编辑模式</translation>
    </message>
    <message>
        <source>Edit specs</source>
        <translation>编辑规格</translation>
    </message>
    <message>
        <source>%1 of %2 modules matched, %3 unmatched, %4 excluded, %5 overlaps</source>
        <translation>%2 个模块中 %1 个已匹配，%3 个未匹配，%4 个已排除，%5 处重叠</translation>
    </message>
    <message>
        <source>Fusion group %1: %2</source>
        <translation>融合组 %1：%2</translation>
    </message>
    <message>
        <source>Modules no rule quantizes: an exclusion wins over every rule</source>
        <translation>不被任何规则量化的模块：排除优先于所有规则</translation>
    </message>
    <message>
        <source>Exclude modules…</source>
        <translation>排除模块…</translation>
    </message>
    <message>
        <source>Pick modules of the opened checkpoint to leave unquantized</source>
        <translation>选择已打开检查点中保持不量化的模块</translation>
    </message>
    <message>
        <source>Remove exclusion</source>
        <translation>移除排除项</translation>
    </message>
    <message>
        <source>Excluded:</source>
        <translation>已排除：</translation>
    </message>
    <message numerus="yes">
        <source>Exclude %n module(s)</source>
        <translation>
            <numerusform>排除 %n 个模块</numerusform>
        </translation>
    </message>
    <message>
        <source>Remove an exclusion</source>
        <translation>移除一个排除项</translation>
    </message>
    <message>
        <source>Exclude Modules</source>
        <translation>排除模块</translation>
    </message>
    <message>
        <source>Filter modules by name</source>
        <translation>按名称筛选模块</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Pattern %1, dialect %2</source>
        <translation>模式 %1，方言 %2</translation>
    </message>
    <message>
        <source>Add spec</source>
        <translation>添加规格</translation>
    </message>
    <message>
        <source>Another spec for this rule: an exporter takes the first one its format can store</source>
        <translation>此规则的另一个规格：导出器采用其格式能存储的第一个</translation>
    </message>
    <message>
        <source>Remove spec</source>
        <translation>移除规格</translation>
    </message>
    <message>
        <source>Edit a spec</source>
        <translation>编辑规格</translation>
    </message>
    <message>
        <source>Add a spec</source>
        <translation>添加一个规格</translation>
    </message>
    <message>
        <source>Remove a spec</source>
        <translation>移除一个规格</translation>
    </message>
    <message>
        <source>Select a rule to edit its spec.</source>
        <translation>选择一条规则以编辑其规格。</translation>
    </message>
    <message>
        <source>Spec of rule “%1”:</source>
        <translation>规则“%1”的规格：</translation>
    </message>
    <message>
        <source>Spec %1 of %2</source>
        <translation>第 %1 个规格（共 %2 个）</translation>
    </message>
</context>
<context>
    <name>quantscope::RooflinePlot</name>
    <message>
        <source>arithmetic intensity (FLOP/byte)</source>
        <translation>算术强度（FLOP/字节）</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>%1 ceiling</source>
        <translation>%1 上限</translation>
    </message>
    <message>
        <source>%1, M %2: %3 FLOP/byte, %4 TFLOP/s (%5 of the ceiling)</source>
        <translation>%1，M %2：%3 FLOP/字节，%4 TFLOP/s（上限的 %5）</translation>
    </message>
    <message>
        <source>run to run: %1 to %2 TFLOP/s (the slowest and the fastest timed run)</source>
        <translation>各次运行之间：%1 至 %2 TFLOP/s（最慢与最快的计时运行）</translation>
    </message>
</context>
<context>
    <name>quantscope::ScaleConstantPlot</name>
    <message>
        <source>scale constant c</source>
        <translation>缩放常数 c</translation>
    </message>
    <message>
        <source>MSE</source>
        <translation>均方误差 MSE</translation>
    </message>
    <message>
        <source>constOpt pow2 (UE8M0 scale)</source>
        <translation>constOpt pow2（UE8M0 缩放因子）</translation>
    </message>
    <message>
        <source>constOpt unrounded (FP32 scale)</source>
        <translation>constOpt 不取整（FP32 缩放因子）</translation>
    </message>
    <message>
        <source>c* pow2 %1</source>
        <translation>c* pow2 %1</translation>
    </message>
    <message>
        <source>c* unrounded %1</source>
        <translation>c* 不取整 %1</translation>
    </message>
    <message>
        <source>INT4 sym, same groups</source>
        <translation>INT4 对称，相同分组</translation>
    </message>
    <message>
        <source>MXFP4</source>
        <translation>MXFP4</translation>
    </message>
    <message>
        <source>Lloyd–Max 16 levels</source>
        <translation>Lloyd–Max 16 级</translation>
    </message>
    <message>
        <source> default %1</source>
        <translation> 默认 %1</translation>
    </message>
    <message>
        <source>c %1: MSE pow2 %2, unrounded %3</source>
        <translation>c %1：MSE pow2 %2，不取整 %3</translation>
    </message>
    <message>
        <source>INT4 %1, MXFP4 %2, Lloyd–Max %3</source>
        <translation>INT4 %1，MXFP4 %2，Lloyd–Max %3</translation>
    </message>
    <message>
        <source>Click to set c in the configuration</source>
        <translation>点击以在配置中设置 c</translation>
    </message>
</context>
<context>
    <name>quantscope::ScaleConstantView</name>
    <message>
        <source>The tensor whose MSE(c) is swept (one of the selected tensors)</source>
        <translation>扫描其 MSE(c) 的张量（所选张量之一）</translation>
    </message>
    <message>
        <source>The constOpt configuration a click on the curve sets c in</source>
        <translation>点击曲线时设置其 c 的 constOpt 配置</translation>
    </message>
    <message>
        <source>Hadamard rotation, block</source>
        <translation>Hadamard 旋转，块大小</translation>
    </message>
    <message>
        <source>Show MSE(c) of the rotated tensor (both are computed)</source>
        <translation>显示旋转后张量的 MSE(c)（两者都会计算）</translation>
    </message>
    <message>
        <source>Sweep c</source>
        <translation>扫描 c</translation>
    </message>
    <message>
        <source>(a click adds a constOpt configuration)</source>
        <translation>（点击会添加一个 constOpt 配置）</translation>
    </message>
    <message>
        <source>Select a tensor in the Tensors dock.</source>
        <translation>在张量面板中选择一个张量。</translation>
    </message>
    <message>
        <source>Sweeping c on %1</source>
        <translation>正在扫描 %1 的 c</translation>
    </message>
    <message>
        <source>Select a tensor and press Sweep c: constOpt&apos;s MSE for every c.</source>
        <translation>选择一个张量并点击“扫描 c”：constOpt 在每个 c 下的 MSE。</translation>
    </message>
    <message>
        <source>%1, groups of %2%3: c* pow2 %4 (flat %5–%6), unrounded %7; MSE at c* %8 / %9, at %10 %11 / %12; INT4 %13, MXFP4 %14, Lloyd–Max %15</source>
        <translation>%1，分组大小 %2%3：c* pow2 %4（平坦区 %5–%6），不取整 %7；c* 处 MSE %8 / %9，%10 处 %11 / %12；INT4 %13，MXFP4 %14，Lloyd–Max %15</translation>
    </message>
    <message>
        <source>, rotated (block %1)</source>
        <translation>，旋转后（块 %1）</translation>
    </message>
    <message>
        <source>No rotated sweep: %1</source>
        <translation>无旋转扫描：%1</translation>
    </message>
</context>
<context>
    <name>quantscope::ScanController</name>
    <message>
        <source>&amp;Layers</source>
        <translation>层(&amp;L)</translation>
    </message>
    <message>
        <source>Every layer&apos;s error at a glance: scan the whole checkpoint</source>
        <translation>一眼看清每一层的误差：扫描整个检查点</translation>
    </message>
    <message>
        <source>Cancelled; the next scan resumes here</source>
        <translation>已取消；下次扫描将从此处继续</translation>
    </message>
    <message>
        <source>Scan finished</source>
        <translation>扫描完成</translation>
    </message>
    <message>
        <source>The scan failed: %1</source>
        <translation>扫描失败：%1</translation>
    </message>
    <message>
        <source>Scan of %1</source>
        <translation>%1 的扫描</translation>
    </message>
</context>
<context>
    <name>quantscope::SessionController</name>
    <message>
        <source>Could not save the session “%1”: %2</source>
        <translation>无法保存会话“%1”：%2</translation>
    </message>
    <message>
        <source>Could Not Save Session</source>
        <translation>无法保存会话</translation>
    </message>
    <message>
        <source>Quantscope could not save “%1”.</source>
        <translation>Quantscope 无法保存“%1”。</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Saved the session %1</source>
        <translation>已保存会话 %1</translation>
    </message>
    <message>
        <source>not valid JSON (%1)</source>
        <translation>不是有效的 JSON（%1）</translation>
    </message>
    <message>
        <source>Could not open the session “%1”: %2</source>
        <translation>无法打开会话“%1”：%2</translation>
    </message>
    <message>
        <source>Could Not Open Session</source>
        <translation>无法打开会话</translation>
    </message>
    <message>
        <source>Quantscope could not open the session “%1”.</source>
        <translation>Quantscope 无法打开会话“%1”。</translation>
    </message>
    <message>
        <source>Opened the session %1</source>
        <translation>已打开会话 %1</translation>
    </message>
</context>
<context>
    <name>quantscope::SigmaPlot</name>
    <message>
        <source>index i</source>
        <translation>索引 i</translation>
    </message>
    <message>
        <source>singular value σᵢ of W − Ŵ</source>
        <translation>W − Ŵ 的奇异值 σᵢ</translation>
    </message>
    <message>
        <source>σ%1</source>
        <translation>σ%1</translation>
    </message>
    <message>
        <source>%1: %2 (%3 σ₁)</source>
        <translation>%1：%2（%3 σ₁）</translation>
    </message>
</context>
<context>
    <name>quantscope::SpecForm</name>
    <message>
        <source>Method:</source>
        <translation>方法：</translation>
    </message>
    <message>
        <source>The spec&apos;s JSON (read-only): what the recipe file holds</source>
        <translation>规格的 JSON（只读）：配方文件中保存的内容</translation>
    </message>
</context>
<context>
    <name>quantscope::SpecWords</name>
    <message>
        <source>Bits</source>
        <translation>位数</translation>
    </message>
    <message>
        <source>Granularity</source>
        <translation>粒度</translation>
    </message>
    <message>
        <source>Group size</source>
        <translation>分组大小</translation>
    </message>
    <message>
        <source>Block size</source>
        <translation>块大小</translation>
    </message>
    <message>
        <source>Channel axis</source>
        <translation>通道轴</translation>
    </message>
    <message>
        <source>Symmetric</source>
        <translation>对称</translation>
    </message>
    <message>
        <source>Scale rule</source>
        <translation>缩放规则</translation>
    </message>
    <message>
        <source>Rounding</source>
        <translation>舍入</translation>
    </message>
    <message>
        <source>Scale applied by</source>
        <translation>缩放因子施加方式</translation>
    </message>
    <message>
        <source>Scale type</source>
        <translation>缩放因子类型</translation>
    </message>
    <message>
        <source>E8M0 rounding</source>
        <translation>E8M0 舍入</translation>
    </message>
    <message>
        <source>Arithmetic</source>
        <translation>运算精度</translation>
    </message>
    <message>
        <source>Refuse ragged groups</source>
        <translation>拒绝不完整分组</translation>
    </message>
    <message>
        <source>Scale of a zero group</source>
        <translation>零分组的缩放因子</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>Passes</source>
        <translation>遍数</translation>
    </message>
    <message>
        <source>Iterations</source>
        <translation>迭代次数</translation>
    </message>
    <message>
        <source>Power iterations</source>
        <translation>幂迭代次数</translation>
    </message>
    <message>
        <source>Scale constant c</source>
        <translation>缩放常数 c</translation>
    </message>
    <message>
        <source>Random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Compute precision</source>
        <translation>计算精度</translation>
    </message>
    <message>
        <source>Zero-point rounding</source>
        <translation>零点舍入</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Compensator</source>
        <translation>补偿器</translation>
    </message>
    <message>
        <source>Compensator group size</source>
        <translation>补偿器分组大小</translation>
    </message>
    <message>
        <source>HQQ preset</source>
        <translation>HQQ 预设</translation>
    </message>
    <message>
        <source>per tensor</source>
        <translation>按张量</translation>
    </message>
    <message>
        <source>per channel</source>
        <translation>按通道</translation>
    </message>
    <message>
        <source>per group</source>
        <translation>按分组</translation>
    </message>
    <message>
        <source>per block</source>
        <translation>按块</translation>
    </message>
    <message>
        <source>toolkit (amax/7.5)</source>
        <translation>工具包（amax/7.5）</translation>
    </message>
    <message>
        <source>maximum (amax/7)</source>
        <translation>最大值（amax/7）</translation>
    </message>
    <message>
        <source>half to even</source>
        <translation>四舍六入五成双</translation>
    </message>
    <message>
        <source>half away from zero</source>
        <translation>远离零舍入</translation>
    </message>
    <message>
        <source>dividing by s</source>
        <translation>除以 s</translation>
    </message>
    <message>
        <source>multiplying by 1/s</source>
        <translation>乘以 1/s</translation>
    </message>
    <message>
        <source>E8M0 (power of two)</source>
        <translation>E8M0（2 的幂）</translation>
    </message>
    <message>
        <source>round up</source>
        <translation>向上取整</translation>
    </message>
    <message>
        <source>round to nearest</source>
        <translation>就近舍入</translation>
    </message>
    <message>
        <source>in FP32</source>
        <translation>以 FP32 计算</translation>
    </message>
    <message>
        <source>in the tensor&apos;s own type</source>
        <translation>以张量自身的类型计算</translation>
    </message>
    <message>
        <source>toolkit (eps of the scale type)</source>
        <translation>工具包（缩放类型的 eps）</translation>
    </message>
    <message>
        <source>smallest normal float</source>
        <translation>最小正规浮点数</translation>
    </message>
    <message>
        <source>E4M3 (max 448)</source>
        <translation>E4M3（最大 448）</translation>
    </message>
    <message>
        <source>E5M2 (max 57344)</source>
        <translation>E5M2（最大 57344）</translation>
    </message>
    <message>
        <source>Only with %1 “%2”</source>
        <translation>仅在%1为“%2”时</translation>
    </message>
    <message>
        <source>Hadamard rotation block</source>
        <translation>Hadamard 旋转块</translation>
    </message>
    <message>
        <source>First stage</source>
        <translation>第一阶段</translation>
    </message>
    <message>
        <source>Second stage</source>
        <translation>第二阶段</translation>
    </message>
    <message>
        <source>uniform integer INT2–8, per tensor / channel / group / block</source>
        <translation>均匀整数 INT2–8，按张量 / 通道 / 组 / 块</translation>
    </message>
    <message>
        <source>code width in bits (2..8)</source>
        <translation>码宽（位，2..8）</translation>
    </message>
    <message>
        <source>one scale per tensor, channel (row), group of K elements or b×b block</source>
        <translation>每个张量、通道（行）、K 个元素的组或 b×b 块一个缩放</translation>
    </message>
    <message>
        <source>group size along K (input dimension)</source>
        <translation>沿 K（输入维度）的组大小</translation>
    </message>
    <message>
        <source>block (tile) size for block granularity</source>
        <translation>块粒度的块（瓦片）大小</translation>
    </message>
    <message>
        <source>channel axis: 0 = output rows, 1 = input columns</source>
        <translation>通道轴：0 = 输出行，1 = 输入列</translation>
    </message>
    <message>
        <source>symmetric (zero point 0) or asymmetric (signed zero point)</source>
        <translation>对称（零点为 0）或非对称（有符号零点）</translation>
    </message>
    <message>
        <source>toolkit: amax/((qmax−qmin)/2) (INT4 /7.5); max: amax/qmax (INT4 /7)</source>
        <translation>工具包：amax/((qmax−qmin)/2)（INT4 /7.5）；最大值：amax/qmax（INT4 /7）</translation>
    </message>
    <message>
        <source>round half to even (torch) or half away from zero</source>
        <translation>四舍六入五成双（torch）或远离零舍入</translation>
    </message>
    <message>
        <source>divide: round(x/s) + z (compressed-tensors); reciprocal: round(x·(1/s) + z) (AMD Quark)</source>
        <translation>除法：round(x/s) + z（compressed-tensors）；倒数：round(x·(1/s) + z)（AMD Quark）</translation>
    </message>
    <message>
        <source>dtype the scale is rounded to and stored in</source>
        <translation>缩放舍入并存储所用的数据类型</translation>
    </message>
    <message>
        <source>E8M0 scales: ceil keeps |x|/s within range; round may clip</source>
        <translation>E8M0 缩放：向上取整使 |x|/s 保持在范围内；四舍五入可能截断</translation>
    </message>
    <message>
        <source>fp32: compute in FP32; source: in the tensor&apos;s own dtype (toolkit parity on BF16)</source>
        <translation>fp32：以 FP32 计算；source：以张量自身的数据类型计算（BF16 上与工具包一致）</translation>
    </message>
    <message>
        <source>refuse K not divisible by the group size instead of a ragged last group</source>
        <translation>拒绝不能被组大小整除的 K，而不是使用不完整的最后一组</translation>
    </message>
    <message>
        <source>scale of a zero group: toolkit = finfo(scale dtype).eps, plain = FLT_MIN</source>
        <translation>全零组的缩放：工具包 = finfo(缩放类型).eps，简单 = FLT_MIN</translation>
    </message>
    <message>
        <source>FP8 E4M3 / E5M2, per tensor / channel / 128×128 block</source>
        <translation>FP8 E4M3 / E5M2，按张量 / 通道 / 128×128 块</translation>
    </message>
    <message>
        <source>E4M3 (e4m3fn, max 448) or E5M2 (max 57344)</source>
        <translation>E4M3（e4m3fn，最大 448）或 E5M2（最大 57344）</translation>
    </message>
    <message>
        <source>one scale per tensor, per output row, or per b×b block (DeepSeek weight_scale_inv)</source>
        <translation>每个张量、每个输出行或每个 b×b 块一个缩放（DeepSeek weight_scale_inv）</translation>
    </message>
    <message>
        <source>fp32: compute in FP32; source: in the tensor&apos;s own dtype</source>
        <translation>fp32：以 FP32 计算；source：以张量自身的数据类型计算</translation>
    </message>
    <message>
        <source>scale of a zero tensor/row/block: toolkit = FP32 eps, plain = FLT_MIN</source>
        <translation>全零张量/行/块的缩放：工具包 = FP32 eps，简单 = FLT_MIN</translation>
    </message>
    <message>
        <source>HQQ half-quadratic INT2–8 (presets hqq-lib, milo-code), iterative zero-point fit</source>
        <translation>HQQ 半二次 INT2–8（预设 hqq-lib、milo-code），迭代拟合零点</translation>
    </message>
    <message>
        <source>hqq-lib: mobiusml/hqq&apos;s hqq_base_quant_config; milo-code: MiLo&apos;s released quantizer</source>
        <translation>hqq-lib：mobiusml/hqq 的 hqq_base_quant_config；milo-code：MiLo 发布的量化器</translation>
    </message>
    <message>
        <source>code width in bits (2..8; unsigned codes 0..2^b−1)</source>
        <translation>码宽（位，2..8；无符号码 0..2^b−1）</translation>
    </message>
    <message>
        <source>group size (hqq-lib: a multiple of 8); numel must be divisible by it</source>
        <translation>组大小（hqq-lib：8 的倍数）；元素数必须能被其整除</translation>
    </message>
    <message>
        <source>HQQ grouping: 1 = g consecutive elements, 0 = g elements spaced numel/g apart</source>
        <translation>HQQ 分组：1 = g 个连续元素，0 = 间隔 numel/g 的 g 个元素</translation>
    </message>
    <message>
        <source>fp32 (the library on CPU) or fp16 (every op rounded to FP16, the library on CUDA)</source>
        <translation>fp32（CPU 上的库）或 fp16（每个运算舍入到 FP16，CUDA 上的库）</translation>
    </message>
    <message>
        <source>round z at initialisation: as the preset (hqq-lib 4-bit only), always, never</source>
        <translation>初始化时对 z 取整：按预设（仅 hqq-lib 4 位）、总是、从不</translation>
    </message>
    <message>
        <source>maximum optimiser iterations (the library: 20)</source>
        <translation>优化器最大迭代次数（库默认 20）</translation>
    </message>
    <message>
        <source>MiLo: HQQ + low-rank compensator U·V fit by alternating passes</source>
        <translation>MiLo：HQQ + 低秩补偿器 U·V，交替遍历拟合</translation>
    </message>
    <message>
        <source>code: 11 passes, no early stop (the released loop); paper: ≤ 20 passes, early stop; both return the best pass</source>
        <translation>code：11 遍，不提前停止（发布的循环）；paper：≤ 20 遍，提前停止；二者都返回最佳的一遍</translation>
    </message>
    <message>
        <source>number of passes (0: the preset&apos;s)</source>
        <translation>遍数（0：按预设）</translation>
    </message>
    <message>
        <source>compensator rank r (clamped to min(N, K); 0 = plain HQQ)</source>
        <translation>补偿器秩 r（限制为 min(N, K)；0 = 纯 HQQ）</translation>
    </message>
    <message>
        <source>U, V stored as FP16, INT8 (symmetric, per group), INT3 (paper eq. 15) or milo-code-int3</source>
        <translation>U、V 存储为 FP16、INT8（对称，按组）、INT3（论文式 15）或 milo-code-int3</translation>
    </message>
    <message>
        <source>group size of the integer compensators (flattened factor)</source>
        <translation>整数补偿器的组大小（展平的因子）</translation>
    </message>
    <message>
        <source>Philox seed of the randomized SVD</source>
        <translation>随机化 SVD 的 Philox 种子</translation>
    </message>
    <message>
        <source>power iterations of the randomized SVD (torch default 2)</source>
        <translation>随机化 SVD 的幂迭代次数（torch 默认 2）</translation>
    </message>
    <message>
        <source>inner HQQ preset (default milo-code: 3-bit, g 64, axis 0)</source>
        <translation>内部 HQQ 预设（默认 milo-code：3 位，g 64，轴 0）</translation>
    </message>
    <message>
        <source>inner HQQ code width</source>
        <translation>内部 HQQ 码宽</translation>
    </message>
    <message>
        <source>inner HQQ group size</source>
        <translation>内部 HQQ 组大小</translation>
    </message>
    <message>
        <source>inner HQQ grouping axis</source>
        <translation>内部 HQQ 分组轴</translation>
    </message>
    <message>
        <source>inner HQQ arithmetic: fp32 or fp16 (per-op FP16 as on CUDA)</source>
        <translation>内部 HQQ 运算：fp32 或 fp16（逐运算 FP16，同 CUDA）</translation>
    </message>
    <message>
        <source>inner HQQ zero rounding: preset, always, never</source>
        <translation>内部 HQQ 零点取整：预设、总是、从不</translation>
    </message>
    <message>
        <source>inner HQQ maximum optimiser iterations</source>
        <translation>内部 HQQ 优化器最大迭代次数</translation>
    </message>
    <message>
        <source>MXFP4: FP4 E2M1, E8M0 scale per 32 (even / floor / ceil)</source>
        <translation>MXFP4：FP4 E2M1，每 32 个一个 E8M0 缩放（偶数 / 向下 / 向上）</translation>
    </message>
    <message>
        <source>shared exponent: even (Quark/compressed-tensors, amax mantissa rounded first), floor (OCP), ceil</source>
        <translation>共享指数：偶数（Quark/compressed-tensors，先对 amax 尾数舍入）、向下取整（OCP）、向上取整</translation>
    </message>
    <message>
        <source>elements per E8M0 scale along K (32 in the MX spec)</source>
        <translation>沿 K 每个 E8M0 缩放的元素数（MX 规范为 32）</translation>
    </message>
    <message>
        <source>NVFP4: FP4 E2M1, E4M3 scale per 16, FP32 global</source>
        <translation>NVFP4：FP4 E2M1，每 16 个一个 E4M3 缩放，全局 FP32</translation>
    </message>
    <message>
        <source>elements per E4M3 block scale along K (16 in NVFP4)</source>
        <translation>沿 K 每个 E4M3 块缩放的元素数（NVFP4 为 16）</translation>
    </message>
    <message>
        <source>two stages (Quark ProgressiveSpec): FP8 per tensor → INT4 per channel</source>
        <translation>两级（Quark ProgressiveSpec）：按张量 FP8 → 按通道 INT4</translation>
    </message>
    <message>
        <source>first stage, applied to W (default FP8 E4M3 per tensor: weight_scale)</source>
        <translation>第一级，作用于 W（默认按张量 FP8 E4M3：weight_scale）</translation>
    </message>
    <message>
        <source>second stage, applied to the stage-1 domain values (default INT4 symmetric per channel: weight_scale_2)</source>
        <translation>第二级，作用于第一级域中的值（默认按通道对称 INT4：weight_scale_2）</translation>
    </message>
    <message>
        <source>FP4 constOpt: s = c·max per group, optional Hadamard rotation</source>
        <translation>FP4 constOpt：每组 s = c·max，可选 Hadamard 旋转</translation>
    </message>
    <message>
        <source>scale constant: s = c·max|x| per group (paper deploys 0.156)</source>
        <translation>缩放常数：每组 s = c·max|x|（论文采用 0.156）</translation>
    </message>
    <message>
        <source>elements per scale along K</source>
        <translation>沿 K 每个缩放的元素数</translation>
    </message>
    <message>
        <source>pow2: s = 2^round(log2(c·m)) stored as UE8M0; unrounded: s = c·m in FP32</source>
        <translation>pow2：s = 2^round(log2(c·m))，存为 UE8M0；不取整：s = c·m，以 FP32 存储</translation>
    </message>
    <message>
        <source>Walsh–Hadamard block size d along K (a power of two dividing K); 0 = none</source>
        <translation>沿 K 的 Walsh–Hadamard 块大小 d（能整除 K 的 2 的幂）；0 = 不旋转</translation>
    </message>
    <message>
        <source>GPTQ (llm-compressor): INT codes chosen against the captured inputs&apos; Hessian; needs a capture</source>
        <translation>GPTQ（llm-compressor）：依据采集输入的 Hessian 选择 INT 码；需要激活采集</translation>
    </message>
    <message>
        <source>GPTQ: columns per lazy-batch block (llm-compressor 128)</source>
        <translation>GPTQ：每个惰性批处理块的列数（llm-compressor 为 128）</translation>
    </message>
    <message>
        <source>GPTQ: fraction of mean diag(H) added to diag(H)</source>
        <translation>GPTQ：加到 diag(H) 上的 diag(H) 均值比例</translation>
    </message>
    <message>
        <source>GPTQ: column order: none, or by diag(H) descending (static = weight: each column keeps its group&apos;s scale)</source>
        <translation>GPTQ：列顺序：无，或按 diag(H) 降序（static = weight：每列保留其组的缩放）</translation>
    </message>
    <message>
        <source>GPTQ: the codes&apos; format: int (the INT options above), fp8 (E4M3, per tensor or channel), nvfp4 (E2M1, E4M3 scales of 16 and an FP32 global scale), mxfp4 (E2M1, E8M0 scales of 32)</source>
        <translation>GPTQ：码的格式：int（上面的 INT 选项）、fp8（E4M3，按张量或通道）、nvfp4（E2M1，每 16 个一个 E4M3 缩放及一个 FP32 全局缩放）、mxfp4（E2M1，每 32 个一个 E8M0 缩放）</translation>
    </message>
    <message>
        <source>AWQ (llm-compressor): per-input-channel scales searched on the captured sample, then INT; needs a capture</source>
        <translation>AWQ（llm-compressor）：在采集样本上搜索每个输入通道的缩放，然后 INT；需要激活采集</translation>
    </message>
    <message>
        <source>AWQ: grid points of the scale search (llm-compressor 20)</source>
        <translation>AWQ：缩放搜索的网格点数（llm-compressor 为 20）</translation>
    </message>
    <message>
        <source>AWQ: scales from activations and weights (on), activations only (off), or half the grid each</source>
        <translation>AWQ：缩放来自激活和权重（on）、仅激活（off），或各占一半网格</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s block types Q4_0…Q8_0, the K-quants Q2_K…Q6_K and the i-quants IQ1_S…IQ4_XS (ggml&apos;s quantizers)</source>
        <translation>llama.cpp 的块类型 Q4_0…Q8_0、K-quants Q2_K…Q6_K 与 i-quants IQ1_S…IQ4_XS（ggml 的量化器）</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s block type: q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl mxfp4 (blocks of 32), q2_k … q6_k, tq1_0 tq2_0 and the i-quants iq1_s … iq4_xs (super-blocks of 256)</source>
        <translation>llama.cpp 的块类型：q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl mxfp4（32 个一块），q2_k … q6_k、tq1_0 tq2_0 与 i-quants iq1_s … iq4_xs（256 个一超块）</translation>
    </message>
    <message>
        <source>K-quants and i-quants: importance weights from the paired capture (per input channel mean x², llama.cpp&apos;s imatrix); iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs require it</source>
        <translation>K-quants 与 i-quants：来自配对采集的重要性权重（每个输入通道的 x² 均值，即 llama.cpp 的 imatrix）；iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs 必须使用</translation>
    </message>
</context>
<context>
    <name>quantscope::SpectrumView</name>
    <message>
        <source>The configuration the rank slider reads</source>
        <translation>秩滑块读取的配置</translation>
    </message>
    <message>
        <source>Compute &amp;spectra</source>
        <translation>计算谱(&amp;S)</translation>
    </message>
    <message>
        <source>Each run also takes the singular values of W − Ŵ (in the same background job)</source>
        <translation>每次运行同时计算 W − Ŵ 的奇异值（在同一后台任务中）</translation>
    </message>
    <message>
        <source>&amp;All values</source>
        <translation>全部值(&amp;A)</translation>
    </message>
    <message>
        <source>All min(N, K) singular values (up to 4096) instead of the top k</source>
        <translation>全部 min(N, K) 个奇异值（最多 4096 个），而不只是前 k 个</translation>
    </message>
    <message>
        <source>top </source>
        <translation>前 </translation>
    </message>
    <message>
        <source>Threshold of the counts: σᵢ ≥ τ·σ₁ and σᵢ &lt; τ·σ₁</source>
        <translation>计数阈值：σᵢ ≥ τ·σ₁ 和 σᵢ &lt; τ·σ₁</translation>
    </message>
    <message>
        <source>&amp;Compute</source>
        <translation>计算(&amp;C)</translation>
    </message>
    <message>
        <source>Run the configurations again with their spectra</source>
        <translation>带谱重新运行这些配置</translation>
    </message>
    <message>
        <source>rank r</source>
        <translation>秩 r</translation>
    </message>
    <message>
        <source>energy captured by the top r</source>
        <translation>前 r 个所捕获的能量</translation>
    </message>
    <message>
        <source>relative error after rank r</source>
        <translation>秩 r 之后的相对误差</translation>
    </message>
    <message>
        <source>MB with FP16 U·V of rank r</source>
        <translation>秩 r 的 FP16 U·V 所占 MB</translation>
    </message>
    <message>
        <source>MiLo pass</source>
        <translation>MiLo 遍</translation>
    </message>
    <message>
        <source>Rank r of an FP16 compensator U·V fitted to the residual</source>
        <translation>拟合残差的 FP16 补偿器 U·V 的秩 r</translation>
    </message>
    <message>
        <source>Run &amp;MiLo at This Rank</source>
        <translation>以此秩运行 MiLo(&amp;M)</translation>
    </message>
    <message>
        <source>Select tensors and press Run with “Compute spectra” on to see the singular values of each configuration&apos;s error W − Ŵ.</source>
        <translation>选择张量，在开启“计算谱”后点击运行，即可查看每种配置误差 W − Ŵ 的奇异值。</translation>
    </message>
    <message>
        <source>These results have no spectra: press Compute.</source>
        <translation>这些结果没有谱：请点击计算。</translation>
    </message>
    <message numerus="yes">
        <source>%n configuration(s) without a spectrum: press Compute.</source>
        <translation>
            <numerusform>%n 种配置没有谱：请点击计算。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2%3 σ ≥ τ·σ₁, %4%5 below (of %6)</source>
        <translation>%1：%2%3 个 σ ≥ τ·σ₁，%4%5 个低于阈值（共 %6 个）</translation>
    </message>
    <message>
        <source>r = %1</source>
        <translation>秩 r = %1</translation>
    </message>
    <message>
        <source>%1 bits/element, %2 MB</source>
        <translation>每元素 %1 位，%2 MB</translation>
    </message>
    <message>
        <source>ε = ‖W − Ŵ − U·V‖ (Frobenius)</source>
        <translation>ε = ‖W − Ŵ − U·V‖（Frobenius 范数）</translation>
    </message>
    <message>
        <source>error ‖E − Eᵣ‖ %1 (relative %2), %3 of ‖E‖² captured (Frobenius norms)</source>
        <translation>误差 ‖E − Eᵣ‖ %1（相对 %2），捕获 ‖E‖² 的 %3（Frobenius 范数）</translation>
    </message>
    <message>
        <source>Add this configuration as MiLo with rank r (FP16 compensator), a configuration of its own, and run only that: the finished results stay</source>
        <translation>将此配置作为秩 r 的 MiLo（FP16 补偿器）添加为独立配置，并只运行它：已完成的结果保留</translation>
    </message>
    <message>
        <source>Configuration %1 is no longer in the quantizer panel.</source>
        <translation>配置 %1 已不在量化器面板中。</translation>
    </message>
    <message>
        <source>The quantizer panel holds %1 configurations already: remove one to add MiLo at rank %2.</source>
        <translation>量化器面板已有 %1 个配置：请删除一个以添加秩为 %2 的 MiLo。</translation>
    </message>
</context>
<context>
    <name>quantscope::TensorBrowser</name>
    <message>
        <source>Filter by name…</source>
        <translation>按名称筛选…</translation>
    </message>
    <message>
        <source>Wildcard</source>
        <translation>通配符</translation>
    </message>
    <message>
        <source>Regex</source>
        <translation>正则</translation>
    </message>
    <message>
        <source>Wildcard: * and ? (e.g. layers.*.down_proj). Regex: a regular expression (e.g. experts\.[0-3]\.). Both ignore case and match anywhere in the name.</source>
        <translation>通配符：* 和 ?（例如 layers.*.down_proj）。正则：正则表达式（例如 experts\.[0-3]\.）。两者都忽略大小写，并匹配名称中的任意位置。</translation>
    </message>
    <message>
        <source>Not a valid regular expression: %1</source>
        <translation>不是有效的正则表达式：%1</translation>
    </message>
    <message>
        <source>Pair as &amp;Activation</source>
        <translation>配对为激活(&amp;A)</translation>
    </message>
    <message>
        <source>Show this tensor&apos;s channel maxima next to each weight you quantize</source>
        <translation>在你量化的每个权重旁显示该张量的通道最大值</translation>
    </message>
    <message>
        <source>&amp;Unpair Activation</source>
        <translation>取消激活配对(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Expand All</source>
        <translation>全部展开(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Collapse All</source>
        <translation>全部折叠(&amp;C)</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n tensor(s) selected</source>
        <translation>
            <numerusform>已选择 %1 / %n 个张量</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shown</source>
        <translation>
            <numerusform>显示 %n 个</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::TensorTreeModel</name>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · paired activation</source>
        <translation>%1 · 已配对的激活</translation>
    </message>
    <message>
        <source>%1
Paired as the activation of the weights you quantize</source>
        <translation>%1
已配对为你所量化权重的激活</translation>
    </message>
    <message>
        <source>%1 elements</source>
        <translation>%1 个元素</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Tensor name, grouped by its dotted path</source>
        <translation>张量名称，按点分路径分组</translation>
    </message>
    <message>
        <source>Element type as stored in the file</source>
        <translation>文件中存储的元素类型</translation>
    </message>
    <message>
        <source>Dimensions, outermost first</source>
        <translation>各维度，最外层在前</translation>
    </message>
    <message>
        <source>Bytes the tensor (or group) occupies in its file</source>
        <translation>张量（或分组）在文件中占用的字节数</translation>
    </message>
    <message>
        <source>Quantized format and scheme, as detected from the stored tensors</source>
        <translation>量化格式和方案，根据存储的张量检测</translation>
    </message>
</context>
<context>
    <name>quantscope::language</name>
    <message>
        <source>per tensor</source>
        <translation>按张量</translation>
    </message>
    <message>
        <source>per channel</source>
        <translation>按通道</translation>
    </message>
    <message>
        <source>per column</source>
        <translation>按列</translation>
    </message>
    <message>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>sym</source>
        <translation>对称</translation>
    </message>
    <message>
        <source>asym</source>
        <translation>非对称</translation>
    </message>
    <message>
        <source>-bit</source>
        <translation> 位</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
</context>
<context>
    <name>quantscope::SchemeWords</name>
    <message>
        <source>Stored as %1</source>
        <translation>存储格式：%1</translation>
    </message>
</context>
<context>
    <name>quantscope::GgmlScheme</name>
    <message>
        <source>dense floats</source>
        <translation>稠密浮点数</translation>
    </message>
    <message>
        <source>dense integers</source>
        <translation>稠密整数</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 4-bit codes, w = d·(q − 8)</source>
        <translation>32 个一块，F16 缩放 d，4 位编码，w = d·(q − 8)</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d and min m, 4-bit codes, w = d·q + m</source>
        <translation>32 个一块，F16 缩放 d 与最小值 m，4 位编码，w = d·q + m</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 5-bit codes, w = d·(q − 16)</source>
        <translation>32 个一块，F16 缩放 d，5 位编码，w = d·(q − 16)</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d and min m, 5-bit codes, w = d·q + m</source>
        <translation>32 个一块，F16 缩放 d 与最小值 m，5 位编码，w = d·q + m</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 8-bit signed codes, w = d·q</source>
        <translation>32 个一块，F16 缩放 d，8 位有符号编码，w = d·q</translation>
    </message>
    <message>
        <source>blocks of 32, F32 scale and sum, 8-bit signed codes (activations only)</source>
        <translation>32 个一块，F32 缩放与和，8 位有符号编码（仅用于激活）</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16, 4-bit scales and mins (F16 d, dmin), 2-bit codes</source>
        <translation>256 个一超块，16 个 16 元子块，4 位缩放与最小值（F16 d、dmin），2 位编码</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16, 6-bit signed scales (F16 d), 3-bit codes</source>
        <translation>256 个一超块，16 个 16 元子块，6 位有符号缩放（F16 d），3 位编码</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 4-bit codes</source>
        <translation>256 个一超块，8 个 32 元子块，6 位缩放与最小值（F16 d、dmin），4 位编码</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 5-bit codes</source>
        <translation>256 个一超块，8 个 32 元子块，6 位缩放与最小值（F16 d、dmin），5 位编码</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16, 8-bit signed scales (F16 d), 6-bit codes</source>
        <translation>256 个一超块，16 个 16 元子块，8 位有符号缩放（F16 d），6 位编码</translation>
    </message>
    <message>
        <source>super-blocks of 256, F32 scale, 8-bit signed codes (activations only)</source>
        <translation>256 个一超块，F32 缩放，8 位有符号编码（仅用于激活）</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 8-value E8-lattice codes (256 points) + 7-bit sign patterns; 2.06 bits per weight</source>
        <translation>256 个一超块，8 个 32 元子块，4 位缩放，8 值 E8 格编码（256 点）+ 7 位符号模式；每权重 2.06 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 9-bit E8-lattice codes (512 points) + 7-bit signs; 2.31 bits per weight</source>
        <translation>256 个一超块，16 个 16 元子块，4 位缩放，9 位 E8 格编码（512 点）+ 7 位符号；每权重 2.31 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 10-bit lattice codes (1024 points), explicit sign bits; 2.5 bits per weight</source>
        <translation>256 个一超块，16 个 16 元子块，4 位缩放，10 位格编码（1024 点），独立符号位；每权重 2.5 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 4-value lattice codes (256 points) + 7-bit signs; 3.06 bits per weight</source>
        <translation>256 个一超块，8 个 32 元子块，4 位缩放，4 值格编码（256 点）+ 7 位符号；每权重 3.06 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 4-bit odd scales, 9-bit 4-value lattice codes (512 points), explicit sign bits; 3.44 bits per weight</source>
        <translation>256 个一超块，8 个 32 元子块，4 位奇数缩放，4 值格的 9 位编码（512 点），独立符号位；每权重 3.44 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 3-bit odd scales and a ±1/8 shift, 11-bit ternary-lattice codes (2048 points); 1.56 bits per weight</source>
        <translation>256 个一超块，8 个 32 元子块，3 位奇数缩放与 ±1/8 偏移，三值格的 11 位编码（2048 点）；每权重 1.56 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16 with 3-bit odd scales (F16 d split over their high bits), ±1/8 shift per 8, 11-bit ternary-lattice codes; 1.75 bits per weight</source>
        <translation>256 个一超块，16 个 16 元子块，3 位奇数缩放（F16 d 分布在其高位），每 8 个 ±1/8 偏移，三值格的 11 位编码；每权重 1.75 位</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 4-bit indexes into a 16-value non-linear table</source>
        <translation>32 个一块，F16 缩放 d，4 位索引指向 16 值非线性表</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 6-bit signed scales, 4-bit indexes into a 16-value non-linear table; 4.25 bits per weight</source>
        <translation>256 个一超块，8 个 32 元子块，6 位有符号缩放，4 位索引指向 16 值非线性表；每权重 4.25 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} packed 5 per byte (base 3); 1.69 bits per weight</source>
        <translation>256 个一超块，F16 缩放，三值编码 {−1, 0, 1}，每字节打包 5 个（三进制）；每权重 1.69 位</translation>
    </message>
    <message>
        <source>super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} in 2 bits; 2.06 bits per weight</source>
        <translation>256 个一超块，F16 缩放，三值编码 {−1, 0, 1}，占 2 位；每权重 2.06 位</translation>
    </message>
    <message>
        <source>blocks of 32, E8M0 scale, FP4 E2M1 codes (ggml: low nibbles elements 0–15, high 16–31; OCP MX packs element pairs)</source>
        <translation>32 个一块，E8M0 缩放，FP4 E2M1 编码（ggml：低半字节为元素 0–15，高半字节为 16–31；OCP MX 按元素对打包）</translation>
    </message>
    <message>
        <source>blocks of 64 as 4 sub-blocks of 16, UE4M3 scale each, FP4 E2M1 codes (ggml: no per-tensor FP32 scale; low nibbles elements 0–7, high 8–15 of each 16)</source>
        <translation>64 个一块，分为 4 个 16 元子块，各一个 UE4M3 缩放，FP4 E2M1 编码（ggml：无逐张量 FP32 缩放；每 16 个中低半字节为元素 0–7，高半字节为 8–15）</translation>
    </message>
    <message>
        <source>blocks of 128, F16 scale, 1-bit codes</source>
        <translation>128 个一块，F16 缩放，1 位编码</translation>
    </message>
</context>
</TS>
